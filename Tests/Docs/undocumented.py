#!/usr/bin/env python3
"""Every public declaration of the ListClient library's own modules has a doc comment.

Usage: undocumented.py SYMBOL_GRAPH_DIR MODULE_SOURCE_DIR...

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
documented_requirements = {
    by_id[r["source"]]["pathComponents"][-1]
    for r in relationships
    if r["kind"] == "requirementOf" and r["source"] in by_id and "docComment" in by_id[r["source"]]
}
missing = []
for symbol in symbols:
    where = symbol.get("location", {}).get("uri", "")
    if symbol["accessLevel"] not in ("public", "open") or not any(f"/{source}/" in where for source in sources):
        continue
    name = symbol["pathComponents"][-1]
    if "docComment" in symbol or name in WITNESSES or name in documented_requirements:
        continue
    line = symbol.get("location", {}).get("position", {}).get("line", 0) + 1
    missing.append(f"{where.split('/Sources/')[-1]}:{line}: {'.'.join(symbol['pathComponents'])} has no doc comment")
for line in sorted(missing):
    print(line)
print(f"{len(missing)} public declarations of {', '.join(sources)} without documentation")
sys.exit(1 if missing else 0)
