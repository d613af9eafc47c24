#!/usr/bin/env python3
"""Converts the npm package bunny's index.js (exports.positions / exports.cells) to OBJ."""
import json, re, sys
src, dst = sys.argv[1], sys.argv[2]
text = open(src).read()
def grab(name):
    m = re.search(r"exports\." + name + r"\s*=\s*(\[.*?\]\])", text, re.S)
    if not m:
        sys.exit(f"{src}: no exports.{name}")
    return json.loads(m.group(1))
pos, cells = grab("positions"), grab("cells")
with open(dst, "w") as f:
    f.write("# Stanford bunny from npm bunny@1.0.1 (converted by cmake/bunny_to_obj.py)\n")
    for p in pos:
        f.write("v %r %r %r\n" % tuple(p))
    for c in cells:
        f.write("f %d %d %d\n" % tuple(i + 1 for i in c))
print(f"bunny: {len(pos)} vertices, {len(cells)} triangles -> {dst}")
