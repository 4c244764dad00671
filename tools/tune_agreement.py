#!/usr/bin/env python3
"""Whether two tunes of one machine agree, size by size.

Issue 49's target: two full tunes on an idle machine give the same pick,
or one within the noise of it by either run's results, at >= 95% of the
measured sizes. For each collective and each size both results files
measured in the rules of every call (the plain rows: no element type of
their own, no root), the two profiles' picks there (their buckets of
every call, the communicator size each measured) are compared: the same
choice agrees; else it agrees where one run's figures put the other's
pick within that run's noise of its own pick (the rule's `noise` there,
the figure a candidate's confirmations give, the slower of its two jobs
and count patterns, else its full timing). A size where neither run has
a figure of the other's pick cannot tell, and counts as not agreeing.

usage: tools/tune_agreement.py A.yaml A.csv B.yaml B.csv
prints one line per size that does not agree, then the count.
"""
import csv
import re
import sys

import yaml

UNITS = {"": 1, "k": 1 << 10, "M": 1 << 20, "G": 1 << 30}
CONFIRMATIONS = ("confirm", "reconfirm")


def size_of(text):
    if text == "max":
        return float("inf")
    m = re.fullmatch(r"(-?\d+)([kMG]?)", str(text))
    return int(m.group(1)) * UNITS[m.group(2)]


def choice(algorithm, params):
    """The algorithm with its parameter values, in one spelling."""
    return algorithm + "".join(f" {k}={params[k]}" for k in sorted(params))


def csv_choice(row):
    params = {}
    for item in filter(None, re.split(r"[,; ]", row["params"])):
        k, v = item.split("=")
        params[k] = size_of(v)
    return choice(row["algorithm"], params)


def plain_rules(profile_path):
    """(collective, measured np) -> [(lo, hi, choice, noise)]."""
    with open(profile_path) as f:
        profile = yaml.safe_load(f)
    out = {}
    for collective, transports in profile["rules"].items():
        for buckets in transports.values():
            for b in buckets:
                if b.get("datatypes") or b.get("roots") or b.get("nonzero_roots"):
                    continue
                if b.get("nodes", 1) != 1:
                    continue
                out[(collective, b["measured_np"])] = [
                    (size_of(r["range"][0]), size_of(r["range"][1]),
                     choice(r["algorithm"], {k: size_of(v) for k, v in (r.get("params") or {}).items()}),
                     r.get("noise", 0.05))
                    for r in b["sizes"]]
    return out


def figures(results_path):
    """(collective, np, bytes) -> {choice: figure}, of the plain rows."""
    by_stage = {}
    for row in csv.DictReader(open(results_path)):
        if row["datatype"] or row["root"] or row["nodes"] != "1":
            continue
        stage = "confirm" if row["stage"] in CONFIRMATIONS else row["stage"]
        if stage not in ("confirm", "final"):
            continue
        key = (row["collective"], int(row["np"]), int(row["bytes"]))
        slot = by_stage.setdefault(key, {}).setdefault(stage, {})
        c = csv_choice(row)
        slot[c] = max(slot.get(c, 0), float(row["median_s"]))
    out = {}
    for key, stages in by_stage.items():
        out[key] = dict(stages.get("final", {}))
        out[key].update(stages.get("confirm", {}))
    return out


def rule_at(rules, size):
    for lo, hi, c, noise in rules:
        if lo <= size < hi:
            return c, noise
    raise ValueError(f"no rule at {size}")


def within(figs, own, other, noise):
    """Whether other's figure lies within noise of own's; None: not told."""
    if own not in figs or other not in figs or figs[own] <= 0:
        return None
    return figs[other] <= figs[own] * (1 + noise)


def main(a_yaml, a_csv, b_yaml, b_csv):
    rules = [plain_rules(a_yaml), plain_rules(b_yaml)]
    figs = [figures(a_csv), figures(b_csv)]
    keys = sorted(set(figs[0]) & set(figs[1]))
    agree = 0
    total = 0
    for collective, np, size in keys:
        if (collective, np) not in rules[0] or (collective, np) not in rules[1]:
            continue
        total += 1
        picks = [rule_at(r[(collective, np)], size) for r in rules]
        if picks[0][0] == picks[1][0]:
            agree += 1
            continue
        told = []
        for run in (0, 1):
            f = figs[run].get((collective, np, size), {})
            told.append(within(f, picks[run][0], picks[1 - run][0], picks[run][1]))
        if any(t for t in told):
            agree += 1
            continue
        ratios = []
        for run in (0, 1):
            f = figs[run].get((collective, np, size), {})
            if picks[0][0] in f and picks[1][0] in f:
                ratios.append(f"{'AB'[run]}'s results: {f[picks[1 - run][0]] / f[picks[run][0]]:.2f}x")
            else:
                ratios.append(f"{'AB'[run]}'s results: not told")
        print(f"{collective} np={np} {size}: A {picks[0][0]}, B {picks[1][0]}; the other's pick "
              f"over its own, {'; '.join(ratios)}")
    print(f"{agree} of {total} measured sizes agree ({100 * agree / max(total, 1):.0f}%): the same "
          f"pick, or one within the noise of the other by either run's results")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip().splitlines()[-2])
    main(*sys.argv[1:])
