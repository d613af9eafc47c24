#!/usr/bin/env python3
"""isc_bench_broadphase's rows, per file: the replay rows (BM_Replay*: detection_ms, dispatch_ms,
detect_ms, passed_pairs per step), the whole-step replay rows (BM_ReplayStep*), the deforming pile's
rows (BM_Deform*) and the pile rows (BM_*: step_ms, collision_ms, passed_pairs, lost_pairs), each row's repetitions, the median of each counter over them, and the medians' ratios
to the Dbvt row of the same kind, size and file (bench/gpu/broadphase-replay-12.sh). Pile rows with
a `seed` counter (ISC_BENCH_BROADPHASE_VARY_SEED=1: one pile layout a repetition) are also paired by
seed: each seed's step_ms ratio to Dbvt's on the same seed, per file and pooled over all the files
given (their median, how many below 1, and the ratio of the sums).
Usage: replay_summary.py FILE...  (rows_of(), by_form() and by_seed() are also imported by the deform-*.sh scripts)"""
import re
import statistics
import sys

KEYS = ("step_ms", "collision_ms", "detection_ms", "dispatch_ms", "detect_ms", "mirror_ms", "bp_mirror_ms", "contacts_ms",
        "passed_pairs", "lost_pairs", "seed")


def value(text):
    """Google benchmark's counter text: a number with an SI suffix (k, m, u, n) or none."""
    scale = {"k": 1e3, "m": 1e-3, "u": 1e-6, "n": 1e-9}.get(text[-1])
    return float(text[:-1]) * scale if scale else float(text)


def rows_of(path, keys=KEYS):
    rows = {}
    for line in open(path, errors="replace"):
        m = re.match(r"BM_(ReplayStep|Replay|Deform)?(\w+)/(\d+)/iterations:1(\S*)\s", line)
        if not m or m.group(4):  # aggregates (_mean, _median, ...) left out
            continue
        kind = m.group(1) or ""
        counters = {k: value(v) for k, v in re.findall(r"(\w+)=([-\d.e+]+[kmun]?)(?=\s|$)", line)}
        rows.setdefault((kind, m.group(2), m.group(3)), []).append({k: counters[k] for k in keys if k in counters})
    return rows


def by_form(folder):
    """The repetitions of the files <form>-p<N>.txt in `folder` (one row each, a layout a
    repetition), as {form: {seed: counters}}, the final contacts and penetration among them."""
    import glob
    forms = {}
    for path in glob.glob(folder + "/*-p*.txt"):
        form = re.match(r".*/([\w-]+)-p\d+\.txt", path).group(1)
        for reps in rows_of(path, KEYS + ("final_contacts", "final_penetration")).values():
            for r in reps:
                forms.setdefault(form, {})[r["seed"]] = r
    return forms


def by_seed(reps_of_form, a, b, keys):
    """Two forms' repetitions ({form: {seed: counters}}) paired by seed: for each key every seed of
    both has, (key, median of a, median of b, the per-seed ratios a / b, how many seeds equal).
    Used by deform-mirror.sh, deform-read.sh and deform-detectors.sh."""
    seeds = sorted(set(reps_of_form.get(a, {})) & set(reps_of_form.get(b, {})))
    out = []
    for key in keys:
        if not seeds or any(key not in reps_of_form[f][s] for f in (a, b) for s in seeds):
            continue
        x = [reps_of_form[a][s][key] for s in seeds]
        y = [reps_of_form[b][s][key] for s in seeds]
        out.append((key, statistics.median(x), statistics.median(y), [u / v for u, v in zip(x, y) if v],
                    sum(u == v for u, v in zip(x, y))))
    return out


def paired(pairs):
    """(row step_ms, Dbvt step_ms) per seed -> one line."""
    ratios = [a / b for a, b in pairs]
    return (f"{len(pairs)} seeds: median ratio {statistics.median(ratios):.3f}, below 1 in "
            f"{sum(r < 1 for r in ratios)} of {len(ratios)}, ratio of sums {sum(a for a, _ in pairs) / sum(b for _, b in pairs):.3f} "
            f"({sum(a for a, _ in pairs) / len(pairs):.3f} / {sum(b for _, b in pairs) / len(pairs):.3f} ms)")


def main(paths):
    pooled = {}
    for path in paths:
        print(f"## {path.rsplit('/', 1)[-1]}")
        rows = rows_of(path)
        for (kind, name, bodies), reps in sorted(rows.items()):
            base = rows.get((kind, "Dbvt", bodies))
            if kind not in ("", "Deform") or name == "Dbvt" or not base or any("seed" not in r for r in reps + base):
                continue
            dbvt = {r["seed"]: r["step_ms"] for r in base}
            pairs = [(r["step_ms"], dbvt[r["seed"]]) for r in reps if r["seed"] in dbvt]
            if len({r["seed"] for r in reps}) > 1 and pairs:
                print(f"  {kind}{name}/{bodies} paired with {kind}Dbvt by seed, {paired(pairs)}")
                pooled.setdefault((kind + name, bodies), []).extend(pairs)
        med = {}
        for (kind, name, bodies), reps in sorted(rows.items(), key=lambda kv: (kv[0][0], int(kv[0][2]), kv[0][1] != "Dbvt", kv[0][1])):
            key = (kind, name, bodies)
            med[key] = {k: statistics.median(r[k] for r in reps if k in r) for k in KEYS if any(k in r for r in reps)}
            base = med.get((kind, "Dbvt", bodies))
            parts = []
            for k in KEYS:
                if k not in med[key] or k == "seed":
                    continue
                v = med[key][k]
                ratio = f" ({v / base[k]:.3f})" if base and k in base and base[k] and name != "Dbvt" else ""
                parts.append(f"{k} {v:.3f}{ratio}")
            timed = "dispatch_ms" if kind == "Replay" else "step_ms"
            each = " ".join(f"{r.get(timed, float('nan')):.2f}" for r in reps)
            print(f"  {kind}{name}/{bodies} x{len(reps)}: " + ", ".join(parts) + f"; {timed} each: {each}")
    for (name, bodies), pairs in sorted(pooled.items()):
        print(f"## pooled: {name}/{bodies} paired with Dbvt by seed over the files, {paired(pairs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
