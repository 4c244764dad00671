#!/usr/bin/env python3
"""Sums up replicates of tools/interposer_runs.py, per collective.

Reads the outputs of several runs of tools/interposer_runs.py (same np,
same profile) and prints, per collective, the geometric mean over its
sizes of each size's median fastest-runs ratio across the replicates
(interposer / library, each side's fastest run; below 1 the tuned runtime
is faster), the worst size, and how many sizes are above 1.05 in every
replicate; then the same over all collectives. A size above 1.05 in every
replicate is beyond what the process modes of a machine explain
(tools/interposer_runs.py says why the fastest runs are compared).

usage: tools/interposer_replicates.py OUTPUT [OUTPUT ...]
"""
import argparse
import statistics


def fastest_ratios(path):
    """(collective, bytes) -> the fastest runs' ratio, in the file's order."""
    ratios = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if line.startswith("#") or len(fields) != 7 or fields[0] == "collective":
                continue
            ratios[(fields[0], int(fields[1]))] = float(fields[6])
    if not ratios:
        raise SystemExit(f"{path}: no rows of tools/interposer_runs.py with a fastest-runs column")
    return ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outputs", nargs="+", help="outputs of tools/interposer_runs.py")
    args = parser.parse_args()
    replicates = [fastest_ratios(p) for p in args.outputs]
    keys = [k for k in replicates[0] if all(k in r for r in replicates)]
    median = {k: statistics.median(r[k] for r in replicates) for k in keys}
    every = {k: min(r[k] for r in replicates) > 1.05 for k in keys}
    n = len(replicates)
    print(f"| collective | mean | worst | above 1.05 in all {n} |")
    print("| --- | ---: | --- | ---: |")
    collectives = list(dict.fromkeys(k[0] for k in keys))
    for c in collectives + ["all"]:
        mine = [k for k in keys if c in ("all", k[0])]
        worst = max(mine, key=lambda k: median[k])
        where = f"{worst[1]} B" if c != "all" else f"{worst[0]} {worst[1]} B"
        print(f"| {c} | {statistics.geometric_mean(median[k] for k in mine):.2f} | "
              f"{median[worst]:.2f} ({where}) | {sum(every[k] for k in mine)} of {len(mine)} |")


if __name__ == "__main__":
    main()
