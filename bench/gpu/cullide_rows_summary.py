#!/usr/bin/env python3
"""Per process and scene, the rows of a cullide-rows.sh archive (its cullide-p<N>.json files):
median ms (÷ peel) / GPU ms / cpu_narrowphase_ms / cpu_after_wait_ms for every cullide row,
then peel's and cpu's medians, and for each cullide row how many processes put it within 1.5×
of peel; with --passes, each cullide row's pose and pair passes (gpu_pose_ms, gpu_pair_ms: the
timestamps' spans) per process, and the processes in which each row's pair pass is shorter than
the first row named after --passes (the code before).

    python3 bench/gpu/cullide_rows_summary.py <folder with cullide-p*.json> [--passes <row>]
"""
import glob
import json
import os
import re
import sys


def rows(path):
    """Per (scene, row), its figures; a row run several times (CULLIDE_REPS: repetitions interleaved
    at random) as one: the median of its runs' median_ms (the bench's summary takes the same), the
    means of the other counters."""
    runs = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        m = re.match(r"(pile|deforming)/100/([a-z0-9_]+)/", b["name"])
        if m:
            runs.setdefault((m.group(1), m.group(2)), []).append(b)
    out = {}
    for key, bs in runs.items():
        medians = sorted(b["median_ms"] for b in bs)
        h = len(medians) // 2
        row = {k: sum(b.get(k, 0) for b in bs) / len(bs)
               for k in bs[0] if isinstance(bs[0][k], (int, float))}
        row["median_ms"] = medians[h] if len(medians) % 2 else 0.5 * (medians[h - 1] + medians[h])
        row["runs"] = len(bs)
        out[key] = row
    return out


def passes(files, base):
    print()
    print(f"## per process and scene: row = pose pass ms / pair pass ms (the GPU's timestamps; base {base})")
    shorter = {}
    for f in files:
        proc = re.search(r"p(\d+)\.json$", f).group(1)
        r = rows(f)
        for scene in ("pile", "deforming"):
            ref = r.get((scene, base))
            parts = []
            for (s, name), b in sorted(r.items()):
                if s != scene or not name.startswith("cullide"):
                    continue
                parts.append(f"{name}={b.get('gpu_pose_ms', 0):.4f} / {b.get('gpu_pair_ms', 0):.4f}")
                if ref is not None and name != base:
                    shorter.setdefault((scene, name), []).append(b.get("gpu_pair_ms", 0) < ref.get("gpu_pair_ms", 0))
            print(f"process {proc} {scene} " + " ".join(parts))
    print()
    print(f"## pair pass shorter than {base}'s: processes")
    for (scene, name), flags in sorted(shorter.items()):
        print(f"{scene} {name}: {sum(flags)} of {len(flags)}")


def main(folder, base=None):
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
    if base:
        passes(files, base)


if __name__ == "__main__":
    args = sys.argv[1:]
    base = None
    if "--passes" in args:
        i = args.index("--passes")
        base = args[i + 1]
        del args[i:i + 2]
    main(args[0] if args else ".", base)
