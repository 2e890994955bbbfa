#!/usr/bin/env python3
"""Links the debug build's binaries again with the Swift runtime in, as the release build links
them (`--static-swift-stdlib`; listctl fully static, as Package.swift has it in release): what
`make deb PACKAGE=debug` packages, so that make test's container test needs no second build of
everything.

The link commands are the ones SwiftPM wrote for the debug build (.build/debug.yaml), with the
output moved and the static runtime asked for; the objects are the debug build's own.

Usage: link-static.py OUTPUT_DIRECTORY PRODUCT..."""

import json
import os
import platform
import re
import subprocess
import sys

# Fully static, as Package.swift links it in release builds; the others load only C libraries.
FULLY_STATIC = {"listctl"}


def link_arguments(manifest, product, triple):
    """The arguments of the debug build's link of `product`."""
    command = '  "C.%s-%s-debug.exe":\n' % (product, triple)
    start = manifest.find(command)
    if start < 0:
        sys.exit("link-static: no link of %s in .build/debug.yaml (run swift build first)" % product)
    match = re.compile(r"^    args: (\[.*\])$", re.M).search(manifest, start)
    if not match:
        sys.exit("link-static: the link of %s has no arguments in .build/debug.yaml" % product)
    return json.loads(match.group(1))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[-1])
    output, products = sys.argv[1], sys.argv[2:]
    triple = "%s-unknown-linux-gnu" % platform.machine()
    with open(".build/debug.yaml") as file:
        manifest = file.read()
    os.makedirs(output, exist_ok=True)
    for product in products:
        arguments = link_arguments(manifest, product, triple)
        at = arguments.index("-o")
        arguments[at + 1] = os.path.join(output, product)
        arguments.append("-static-executable" if product in FULLY_STATIC else "-static-stdlib")
        # The objects name Foundation's libraries, not what those need in turn: in a build for
        # the static runtime the compiler records them; here they are named.
        arguments += ["-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims", "-l_FoundationCollections"]
        print("linking %s with the Swift runtime in" % arguments[at + 1], flush=True)
        subprocess.run(arguments, check=True)


if __name__ == "__main__":
    main()
