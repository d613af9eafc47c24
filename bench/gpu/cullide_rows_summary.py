#!/usr/bin/env python3
"""Per process and scene, the rows of a cullide-rows.sh archive (its cullide-p<N>.json files):
median ms (÷ peel) / GPU ms / cpu_narrowphase_ms / cpu_after_wait_ms for every cullide row,
then peel's and cpu's medians, and for each cullide row how many processes put it within 1.5×
of peel.

    python3 bench/gpu/cullide_rows_summary.py <folder with cullide-p*.json>
"""
import glob
import json
import os
import re
import sys


def rows(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        m = re.match(r"(pile|deforming)/100/([a-z0-9_]+)/", b["name"])
        if m:
            out[(m.group(1), m.group(2))] = b
    return out


def main(folder):
    files = sorted(glob.glob(os.path.join(folder, "cullide-p*.json")),
                   key=lambda f: int(re.search(r"p(\d+)\.json$", f).group(1)))
    within = {}
    print("## per process and scene: row = median ms (/ peel) / gpu ms / cpu_narrowphase_ms / cpu_after_wait_ms")
    for f in files:
        proc = re.search(r"p(\d+)\.json$", f).group(1)
        r = rows(f)
        for scene in ("pile", "deforming"):
            peel = r.get((scene, "peel"))
            cpu = r.get((scene, "cpu"))
            if peel is None:
                continue
            p = peel["median_ms"]
            parts = []
            for (s, name), b in sorted(r.items()):
                if s != scene or not name.startswith("cullide"):
                    continue
                ratio = b["median_ms"] / p
                parts.append(f"{name}={b['median_ms']:.3f} ({ratio:.2f}) / {b.get('gpu_ms', 0):.3f} / "
                             f"{b.get('cpu_narrowphase_ms', 0):.3f} / {b.get('cpu_after_wait_ms', 0):.3f}")
                within.setdefault((scene, name), []).append(ratio <= 1.5)
            cpu_text = f" cpu={cpu['median_ms']:.3f}" if cpu else ""
            print(f"process {proc} {scene} " + " ".join(parts) + f" peel={p:.3f} (gpu {peel.get('gpu_ms', 0):.3f})"
                  + cpu_text)
    print()
    print("## within 1.5x of peel: processes")
    for (scene, name), flags in sorted(within.items()):
        print(f"{scene} {name}: {sum(flags)} of {len(flags)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
