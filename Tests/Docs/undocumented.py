#!/usr/bin/env python3
"""Every public declaration of the ListClient library's own modules has a doc comment.

Usage: undocumented.py SYMBOL_GRAPH_DIR MODULE_SOURCE_DIR...   (ListClient ListClientCore ListModel ListRPC)

Reads ListClient's symbol graph (swift build -emit-symbol-graph) and lists each public
declaration whose source is under one of the given directories and that has no doc comment. A
witness of a documented protocol requirement (a delegate's shouldAdd) takes the requirement's
documentation, as DocC shows it, and so do the members every conformance brings (Codable,
Hashable, CustomStringConvertible, the literal protocols). Exits 1 when any is left.
"""
import glob
import json
import sys

WITNESSES = {
    "init(from:)", "encode(to:)", "hash(into:)", "hashValue", "description", "debugDescription",
    "==(_:_:)", "<(_:_:)", "init(rawValue:)", "rawValue", "init(stringLiteral:)", "init(unicodeScalarLiteral:)",
    "init(extendedGraphemeClusterLiteral:)", "init(integerLiteral:)", "init(arrayLiteral:)",
}

graph_dir, *sources = sys.argv[1:]
symbols, relationships = [], []
for path in glob.glob(f"{graph_dir}/ListClient.symbols.json") + glob.glob(f"{graph_dir}/ListClient@*.symbols.json"):
    with open(path, encoding="utf-8") as file:
        graph = json.load(file)
    symbols += graph["symbols"]
    relationships += graph.get("relationships", [])
by_id = {symbol["identifier"]["precise"]: symbol for symbol in symbols}
# A protocol's documented requirements, by protocol; what each type conforms to; whose member
# each symbol is (a witness of a documented requirement is documented by it).
documented_requirements = {}
for r in relationships:
    if r["kind"] == "requirementOf" and "docComment" in by_id.get(r["source"], {}):
        documented_requirements.setdefault(r["target"], set()).add(by_id[r["source"]]["pathComponents"][-1])
conforms = {}
for r in relationships:
    if r["kind"] == "conformsTo":
        conforms.setdefault(r["source"], set()).add(r["target"])
parent = {r["source"]: r["target"] for r in relationships if r["kind"] == "memberOf"}
# What DocC shows with another declaration's documentation: a member that implements a protocol's
# (`sourceOrigin`: Decodable.init(from:), CustomStringConvertible.description, …), and a default
# implementation of a documented requirement.
inherits = {r["source"] for r in relationships if r["kind"] == "memberOf" and "sourceOrigin" in r}
inherits |= {
    r["source"] for r in relationships
    if r["kind"] == "defaultImplementationOf" and "docComment" in by_id.get(r["target"], {})
}


def witnesses_a_documented_requirement(symbol):
    precise = symbol["identifier"]["precise"]
    owner = parent.get(precise)
    protocols = conforms.get(owner, set()) | ({owner} if owner in documented_requirements else set())
    return any(symbol["pathComponents"][-1] in documented_requirements.get(p, ()) for p in protocols)
missing = []
for symbol in symbols:
    where = symbol.get("location", {}).get("uri", "")
    if symbol["accessLevel"] not in ("public", "open") or not any(f"/{source}/" in where for source in sources):
        continue
    name = symbol["pathComponents"][-1]
    if (
        "docComment" in symbol or name in WITNESSES or symbol["identifier"]["precise"] in inherits
        or witnesses_a_documented_requirement(symbol)
    ):
        continue
    line = symbol.get("location", {}).get("position", {}).get("line", 0) + 1
    missing.append(f"{where.split('/Sources/')[-1]}:{line}: {'.'.join(symbol['pathComponents'])} has no doc comment")
for line in sorted(missing):
    print(line)
print(f"{len(missing)} public declarations of {', '.join(sources)} without documentation")
sys.exit(1 if missing else 0)
