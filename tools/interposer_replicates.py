#!/usr/bin/env python3
"""Sums up replicates of tools/interposer_runs.py as a user sees them.

Reads the outputs of several runs of tools/interposer_runs.py (same np,
same profile), each a replicate, and prints what a user who runs a
benchmark once sees: per replicate, the geometric mean over every point
(collective, size) of the ratio of the medians of its alternated runs
(interposer / library; below 1 the tuned runtime is faster) and how many
points are above 1.05; then the points above 1.05 in every replicate,
each with its median ratio in each; then per collective the geometric
mean of the points' median ratios (the median over the replicates of each
point's) and the points above 1.05 in every replicate. The fastest runs'
ratios (each side's fastest run) and the ratios within each level of the
machine's latency (interposer_runs.py's `at fast` and `at slow` columns,
where the files have them) stand beside, never alone: a user does not
pick the fastest of their runs, nor the level the machine is at.

usage: tools/interposer_replicates.py OUTPUT [OUTPUT ...]
"""
import argparse
import statistics

MEDIAN, FASTEST, AT_FAST, AT_SLOW = 4, 6, 7, 8  # columns of an interposer_runs.py row
LEVELS = {"fast": 2, "slow": 3}  # where a level's ratio lies in a point's tuple


def ratios(path):
    """(collective, bytes) -> (median ratio, fastest-runs ratio, ratio at the fast
    level, at the slow one; None where not measured), in the file's order."""
    out = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if line.startswith("#") or len(fields) not in (7, 9) or fields[0] == "collective":
                continue
            at = [None if len(fields) == 7 or fields[i] == "-" else float(fields[i])
                  for i in (AT_FAST, AT_SLOW)]
            out[(fields[0], int(fields[1]))] = (float(fields[MEDIAN]), float(fields[FASTEST]), *at)
    if not out:
        raise SystemExit(f"{path}: no rows of tools/interposer_runs.py")
    return out


def gmean(values):
    return statistics.geometric_mean(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outputs", nargs="+", help="outputs of tools/interposer_runs.py")
    args = parser.parse_args()
    replicates = [ratios(p) for p in args.outputs]
    keys = [k for k in replicates[0] if all(k in r for r in replicates)]
    n = len(replicates)
    print("| | " + " | ".join(f"replicate {i + 1}" for i in range(n)) + " |")
    print("| --- |" + " ---: |" * n)
    print("| geometric mean of the median ratios | " +
          " | ".join(f"{gmean(r[k][0] for k in keys):.2f}" for r in replicates) + " |")
    print(f"| points above 1.05 (of {len(keys)}) | " +
          " | ".join(str(sum(r[k][0] > 1.05 for k in keys)) for r in replicates) + " |")
    print("| beside: geometric mean of the fastest runs' ratios | " +
          " | ".join(f"{gmean(r[k][1] for k in keys):.2f}" for r in replicates) + " |")
    losing = [k for k in keys if all(r[k][0] > 1.05 for r in replicates)]
    print(f"\n{len(losing)} points above 1.05 in all {n} replicates" + (":" if losing else ""))
    for k in losing:
        print(f"- {k[0]} {k[1]} B: " + ", ".join(f"{r[k][0]:.2f}" for r in replicates))
    for level, i in LEVELS.items():
        measured = [k for k in keys if all(r[k][i] is not None for r in replicates)]
        if not measured:
            continue
        print(f"\nbeside, at the {level} level ({len(measured)} points measured there in every "
              "replicate): geometric means " +
              " / ".join(f"{gmean(r[k][i] for k in measured):.2f}" for r in replicates))
        at_level = [k for k in measured if all(r[k][i] > 1.05 for r in replicates)]
        print(f"{len(at_level)} points above 1.05 at the {level} level in all {n} replicates" +
              (":" if at_level else ""))
        for k in at_level:
            print(f"- {k[0]} {k[1]} B: " + ", ".join(f"{r[k][i]:.2f}" for r in replicates))
    median = {k: statistics.median(r[k][0] for r in replicates) for k in keys}
    print(f"\n| collective | mean | worst | above 1.05 in all {n} |")
    print("| --- | ---: | --- | ---: |")
    for c in list(dict.fromkeys(k[0] for k in keys)) + ["all"]:
        mine = [k for k in keys if c in ("all", k[0])]
        worst = max(mine, key=lambda k: median[k])
        where = f"{worst[1]} B" if c != "all" else f"{worst[0]} {worst[1]} B"
        print(f"| {c} | {gmean(median[k] for k in mine):.2f} | {median[worst]:.2f} ({where}) | "
              f"{sum(k in losing for k in mine)} of {len(mine)} |")


if __name__ == "__main__":
    main()
