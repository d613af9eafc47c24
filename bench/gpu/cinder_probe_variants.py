#!/usr/bin/env python3
"""Variants of shaders/cinder/resolve.glsl for bisecting a driver's compiler failure (issue 10:
NVIDIA 580, "fatal error C9999: unexpected expression in DUI_foreachId" at link). Each variant
is a folder DEST/<name>/cinder/resolve.glsl for isc_glsl_probe (ISC_SHADER_DIR): t* cut main()
after a step (the rest dropped, what was computed written to a sink so it is not optimised
away), r* change one construct of the whole file, all* several at once.
Written for resolve.glsl as of e82a508 (before the fix: the edits name its text):
  git show e82a508:shaders/cinder/resolve.glsl > /tmp/resolve.glsl
Usage: cinder_probe_variants.py SRC DEST"""
import os
import re
import sys

src_path, dest = sys.argv[1], sys.argv[2]
src = open(src_path).read()
head, main = src.split("void main() {\n", 1)
main_lines = main.rstrip().split("\n")
assert main_lines[-1] == "}"
main_lines = main_lines[:-1]
variants = {}


def cut(name, marker, sink):
    """main() up to and including the first line containing `marker`, then `sink`, then braces."""
    out = []
    for line in main_lines:
        out.append(line)
        if marker in line:
            break
    else:
        raise SystemExit("marker not found: " + marker)
    depth = sum(l.count("{") - l.count("}") for l in out)
    text = "\n".join(out)
    endif = "#endif\n" if "#else" in text and "#endif" not in text else ""
    body = text + "\n" + sink + "\n" + endif + "}\n" * depth
    variants[name] = head + "void main() {\n" + body + "}\n"


variants["t0-head"] = head + "void main() {\n    colour[gl_GlobalInvocationID.x] = encodeNormal(vec3(gl_GlobalInvocationID));\n}\n"
cut("t1-view", "uint axis = v.axis;", "colour[pixel] = axis + edgeCount + surfCount + (overflow ? 1u : 0u);")
cut("t2-surfaces", "sPlane[j] = vec4(n, dot(n, a));",
    "colour[pixel] = floatBitsToUint(sPlane[j].x + sDepth[j]) + sSlot[j] + sTriangle[j];")
cut("t3-edgepoint", "float ze = mix(c0.z, c1.z, t)",
    "colour[pixel] = floatBitsToUint(p.x + ze + sPlane[i].y) + sSlot[i];")
cut("t4-first", "if (!first) continue;", "colour[pixel] = slotB + slotA;")
cut("t5-winding", "if (sDepth[j] < ze) winding",
    "colour[pixel] = uint(winding);")
cut("t6-jloop", "nNear = n;",
    "colour[pixel] = uint(winding) + triInside + triNear + floatBitsToUint(bestInside + nearestDepth + distInside + distNear + nInside.x + nNear.y);")
cut("t7-flags", "if (!inside && !near) continue;", "colour[pixel] = 1u;")
cut("t8-counter", "atomicAdd(counters[inside ? CD_COUNTER_INSIDE : CD_COUNTER_NEAR], 1u);", "colour[pixel] = 1u;")
cut("t9a-hitatomic", "uint index = atomicAdd(counters[CD_COUNTER_HITS], 1u);", "colour[pixel] = index;")
cut("t9-hitindex", "if (index >= uHitCapacity) continue;", "colour[pixel] = index;")
cut("t9b-flags", "uint flags = (inside", "colour[pixel] = flags + tri + floatBitsToUint(dist + n.x);")
cut("t9c-point", "h.point = vec4(p, dist);", "hits[index].point = h.point;")
cut("t9d-fields", "h.pad = 0u;", "colour[pixel] = h.normal;")
variants["t10-full"] = src

# Single changes to the whole file: (name, [(old, new), ...]); regex when old starts with "re:".
edits = [
    ("r-atomic-select", [("atomicAdd(counters[inside ? CD_COUNTER_INSIDE : CD_COUNTER_NEAR], 1u);",
                          "if (inside) atomicAdd(counters[CD_COUNTER_INSIDE], 1u); else atomicAdd(counters[CD_COUNTER_NEAR], 1u);")]),
    ("r-no-count-atomic", [("atomicAdd(counters[inside ? CD_COUNTER_INSIDE : CD_COUNTER_NEAR], 1u);", "")]),
    ("r-no-first", [("bool first = true;", ""), ("for (uint k = 0u; k < j0; ++k) first = first && sSlot[k] != slotB;", ""),
                    ("if (!first) continue;", "")]),
    ("r-first-if", [("first = first && sSlot[k] != slotB;", "if (sSlot[k] == slotB) first = false;")]),
    ("r-encode", [("h.normal = encodeNormal(n);", "h.normal = floatBitsToUint(n.x + n.y + n.z);")]),
    ("r-view-macro", [("CdView v = views[viewIndex];", "#define v views[viewIndex]")]),
    ("r-obj-macro", [("GpuObject oa = sceneObjects[objectA];", "#define oa sceneObjects[objectA]")]),
    ("r-no-overflow-block", [("re:if \\(overflow\\) \\{.*?\\n    \\}", "")]),
    ("r-overflow-false", [("re:bool overflow = [^;]*;", "bool overflow = false;"), ("re:if \\(overflow\\) \\{.*?\\n    \\}", "")]),
    ("r-no-viewflags", [("viewFlags[viewIndex] = 1u;", "")]),
    ("r-no-colour-buffer", [("re:layout\\([^)]*CD_BINDING_COLOUR\\)[^\\n]*\\n", "")]),
    ("r-no-writeonly", [("writeonly ", "")]),
    ("r-small-consts", [("-3.4e38", "-1.0e30"), ("3.4e38", "1.0e30")]),
    ("r-cap-if", [("if (index >= uHitCapacity) continue;", ""), ("hits[index] = h;", "if (index < uHitCapacity) hits[index] = h;")]),
    ("r-no-hitwrite", [("hits[index] = h;", "")]),
    ("r-no-hit-atomic", [("uint index = atomicAdd(counters[CD_COUNTER_HITS], 1u);", "uint index = pixel;")]),
    ("r-no-triangle-fetch", [("sceneWorldTriangle(viewObjects[v.firstObject + sSlot[j]], sTriangle[j], a, b, c);",
                              "a = sceneVertices[viewObjects[v.firstObject + sSlot[j]] + sTriangle[j]].xyz; b = a.yzx; c = a.zxy;")]),
    ("r-no-edge-fetch", [("uvec4 ed = edges[meshEdgeFirst[oa.meshId & ~ISC_OBJECT_INACTIVE] + edge];",
                          "uvec4 ed = edges[edge];")]),
    ("r-no-axis-index", [("n[axis] < 0.0", "dot(n, vec3(axis == 0u, axis == 1u, axis == 2u)) < 0.0")]),
    ("r-no-continue-self", [("if (slotB == slotA) continue;", ""), ]),
    ("r-no-returns", [("if (edgeCount == 0u) return;", ""), ("if (surfCount == 0u) return;", ""),
                      ("if (viewIndex >= uViewCount) return;", "viewIndex = min(viewIndex, uViewCount - 1u);")]),
    ("r-no-pack", [("return packSnorm2x16(e);", "return floatBitsToUint(e.x + e.y);")]),
    ("r-no-ternary-hit", [("uint tri = useInside ? triInside : triNear;", "uint tri = triNear; if (useInside) tri = triInside;"),
                          ("float dist = useInside ? distInside : distNear;", "float dist = distNear; if (useInside) dist = distInside;"),
                          ("vec3 n = useInside ? nInside : nNear;", "vec3 n = nNear; if (useInside) n = nInside;")]),
    ("r-flags-if", [("uint flags = (inside ? CD_HIT_INSIDE : 0u) | (near ? CD_HIT_NEAR : 0u) | (crossing ? CD_HIT_CROSSING : 0u);",
                     "uint flags = 0u; if (inside) flags |= CD_HIT_INSIDE; if (near) flags |= CD_HIT_NEAR; if (crossing) flags |= CD_HIT_CROSSING;")]),
    ("r-no-bitcast", [("sDepth[j] = uintBitsToFloat(s.x);", "sDepth[j] = float(s.x);")]),
    ("r-no-shift", [("re:>> 24", "/ 16777216u"), ("re:>> 24", "/ 16777216u")]),
    ("r-no-numgroups", [("gl_NumWorkGroups.x", "uTilesX")]),
    ("r-no-hit-struct", [("CdHit h;", "CdHit h = CdHit(vec4(0.0), 0u, 0u, 0u, 0u, 0u, 0u, 0.0, 0u);")]),
    ("r-no-winding-ternary", [("winding += n[axis] < 0.0 ? 1 : -1;", "{ if (n[axis] < 0.0) winding += 1; else winding -= 1; }")]),
]


def apply(text, changes):
    for old, new in changes:
        if old.startswith("re:"):
            text2 = re.sub(old[3:], new, text, count=1, flags=re.S)
        else:
            text2 = text.replace(old, new)
        if text2 == text:
            raise SystemExit("edit did not apply: " + old)
        text = text2
    return text


for name, changes in edits:
    variants[name] = apply(src, changes)
# Everything that keeps the meaning at once (not the removals).
keep = ["r-atomic-select", "r-first-if", "r-view-macro", "r-obj-macro", "r-small-consts", "r-cap-if", "r-no-axis-index",
        "r-no-ternary-hit", "r-flags-if"]
text = src
for name, changes in edits:
    if name in keep:
        text = apply(text, changes)
variants["all-keep"] = text

for name, text in variants.items():
    os.makedirs(os.path.join(dest, name, "cinder"), exist_ok=True)
    with open(os.path.join(dest, name, "cinder", "resolve.glsl"), "w") as f:
        f.write(text)
print(len(variants), "variants in", dest)
