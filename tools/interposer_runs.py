#!/usr/bin/env python3
"""Times the MPI library alone against the interposer, from outside.

Runs the plain MPI benchmark build/bin/osu_style_bench (OSU's way of timing:
a barrier after every call, the average over calls and ranks) alternately
on the MPI library alone and with the interposer preloaded, N times each,
and prints per collective and size the median latency of each side, the
ratio of the medians (interposer / library; below 1 the tuned runtime is
faster), the range of the ratios of the runs taken in pairs, and the
ratio of each side's fastest run, and the ratio within a level of the
machine's latency. The two sides cannot share a process
(the preload is per process), so alternating whole runs is what keeps a
slow spell of the machine from landing on one side only. The fastest runs'
ratio is there because on some machines whole processes run in a fast or
a slow mode (measured on the project's 2-core VM: the library's 1-byte
allgather took 0.25-0.29 us in about 80% of fresh processes, 0.50-0.67 us
in the rest, for every collective of the run at once), and a median of 5
runs then moves with how many slow ones each side drew: the same profile
gave geometric means of 0.49, 0.88 and 1.15 in three replicates. The
fastest run of each side compares the two in the same mode. Better:
osu_style_bench times a probe before each point (an 8-byte
MPI_Send/MPI_Recv ping-pong, which the interposer does not take), and the
probes of all runs fall into levels (tuner/latency_levels.hpp); the `at
fast` and `at slow` columns are the ratios of the two sides' medians over
their runs at each level, where each side has at least 2 runs there ('-'
where not; with one level, `at fast` is over every run). On the project's
VM the library against itself (every call kept) came out at 0.99-1.05
per replicate at the fast level and 1.00-1.01 at the slow one (two series
of three replicates, 15 runs a side), where the plain medians gave
0.80-1.29; the tuner's outside check judges each pick at the level where
it does worse.
CCT_FORCE,
when set, goes to the interposer's side. --mpirun replaces the command
that starts the ranks (default: mpirun --oversubscribe, as root with
--allow-run-as-root): tools/cluster_bench.py --outside passes the
emulated hosts' (tests/cluster/hosts.sh mpirun).

Several profiles (--profile given more than once, --out PREFIX) are timed
in one series, every side (the library and each profile) in turn run by
run: timed as series one after another, two builds that the alternated
runs could not tell apart differed by 43 points against 5 (the machine
drifts between series; docs/benchmarks.md, "A kept call decided by its
counts").

usage: tools/interposer_runs.py [--runs N] [--np N] [--profile FILE ...]
                                [--out PREFIX] [--max-bytes B] [--build DIR]
                                [--mpirun CMD]
"""
import argparse
import contextlib
import math
import os
import shlex
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEVEL_SHARE, LEVEL_RATIO = 0.05, 1.5  # tuner/latency_levels.hpp: kLevelShare, kLevelRatio
FEWEST_AT_LEVEL = 2  # kFewestAtLevel


def level_threshold(probes):
    """The probe above which a point was timed at the slow level; 0: one level.
    As tuner/latency_levels.hpp finds it: Otsu's split in log time."""
    probes = sorted(p for p in probes if p > 0)
    n = len(probes)
    fewest = max(math.ceil(LEVEL_SHARE * n), 1)
    logs = [math.log(p) for p in probes]
    total, prefix, best, split = sum(logs), 0.0, 0.0, 0
    for i in range(1, n):
        prefix += logs[i - 1]
        if i < fewest or n - i < fewest:
            continue
        low, high = prefix / i, (total - prefix) / (n - i)
        between = i * (n - i) * (high - low) ** 2
        if between > best:
            best, split = between, i
    if not split or statistics.median(probes[split:]) < LEVEL_RATIO * statistics.median(
            probes[:split]):
        return 0
    return (probes[split - 1] * probes[split]) ** 0.5


def level_ratio(lib, cct, threshold, slow):
    """Interposer / library medians over the runs at one level (every run
    where there is one level), where each side has FEWEST_AT_LEVEL runs
    there (one, with one level); else None."""
    at = [[s for s, p in side if not threshold or (p > threshold) == slow] for side in (lib, cct)]
    if min(len(a) for a in at) < (FEWEST_AT_LEVEL if threshold else 1):
        return None
    return statistics.median(at[1]) / statistics.median(at[0])


def run_once(args, preload, profile):
    env = dict(os.environ)
    cmd = shlex.split(args.mpirun) + ["-np", str(args.np)]
    if preload:
        env["LD_PRELOAD"] = os.path.join(args.build, "lib", "libcct_mpi.so")
        cmd += ["-x", "LD_PRELOAD"]
        if profile:
            env["CCT_PROFILE"] = profile
            cmd += ["-x", "CCT_PROFILE"]
        if "CCT_FORCE" in env:
            cmd += ["-x", "CCT_FORCE"]
    else:
        env.pop("LD_PRELOAD", None)
    cmd += [os.path.join(args.build, "bin", "osu_style_bench"), str(args.max_bytes)]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        if line.startswith("#") or len(fields) not in (6, 7):
            continue
        probe = float(fields[6]) if len(fields) == 7 else 0.0
        rows[(fields[0], int(fields[1]))] = (float(fields[2]), probe)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each side (default 5)")
    parser.add_argument("--np", type=int, default=2, help="ranks (default 2)")
    parser.add_argument("--profile", action="append",
                        help="CCT_PROFILE for the interposer's side; given more than once, each "
                        "profile is a side of its own, every side alternated run by run, and "
                        "each table goes to --out")
    parser.add_argument("--out", help="with several --profile: the tables go to OUT1.txt, "
                        "OUT2.txt, ..., in the order of the profiles")
    parser.add_argument("--max-bytes", type=int, default=1 << 20, help="largest size (1 MiB)")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory")
    parser.add_argument("--mpirun", help="the command that starts the ranks, before -np "
                        "(default: mpirun --oversubscribe, as root --allow-run-as-root)")
    args = parser.parse_args()
    if args.mpirun is None:
        args.mpirun = "mpirun --oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0 else "")
    if args.runs < 1 or args.np < 1 or args.max_bytes < 1:
        parser.error("--runs, --np and --max-bytes must be at least 1")
    profiles = args.profile or [None]
    if len(profiles) > 1 and not args.out:
        parser.error("several --profile need --out")
    # The sides: the library alone, then each profile under the interposer.
    sides = [(False, None)] + [(True, p) for p in profiles]
    runs = [[] for _ in sides]
    for i in range(args.runs):
        print(f"run {i + 1} of {args.runs}", file=sys.stderr)
        # The sides in turn first: no side always follows the same one.
        for j in range(len(sides)):
            k = (i + j) % len(sides)
            runs[k].append(run_once(args, *sides[k]))
    for n, profile in enumerate(profiles, 1):
        out = open(f"{args.out}{n}.txt", "w") if len(profiles) > 1 else sys.stdout
        with contextlib.redirect_stdout(out):
            table(args, profile, len(sides), runs[0], runs[n])
        if out is not sys.stdout:
            out.close()


def table(args, profile, sides, library, interposer):
    """interposer's runs against library's, as a table on stdout."""
    print(f"# np {args.np}, {args.runs} runs of each side alternated" +
          (f" (with {sides - 2} other profiles' runs)" if sides > 2 else "") +
          f"; profile {profile or '(the runtime finds its own)'}; started by {args.mpirun}")
    threshold = level_threshold(p for run in library + interposer for _, p in run.values())
    if threshold:
        slow = [statistics.mean(p > threshold for run in side for _, p in run.values())
                for side in (library, interposer)]
        print(f"# the probe's latency at two levels, split at {threshold:.3f} us; the slow one "
              f"under {100 * slow[0]:.0f}% of the library's points, {100 * slow[1]:.0f}% of the "
              f"interposer's")
    else:
        print("# the probe's latency at one level")
    print(f"{'collective':<20} {'bytes':>8} {'library us':>11} {'cct us':>9} {'ratio':>6}  "
          f"{'range':<9}  {'fastest':>7}  {'at fast':>7}  {'at slow':>7}")
    ratios, fastest, above, beyond, fastest_above = [], [], 0, 0, 0
    levels = {False: [], True: []}  # the ratios at the fast level and at the slow one
    for key in library[0]:
        lib_runs = [run[key] for run in library]
        cct_runs = [run[key] for run in interposer]
        lib = statistics.median(s for s, _ in lib_runs)
        cct = statistics.median(s for s, _ in cct_runs)
        pairs = [c[0] / l[0] for l, c in zip(lib_runs, cct_runs)]
        ratio = cct / lib
        best = min(s for s, _ in cct_runs) / min(s for s, _ in lib_runs)
        at = {slow: level_ratio(lib_runs, cct_runs, threshold, slow) for slow in (False, True)}
        if not threshold:
            at[True] = None
        ratios.append(ratio)
        fastest.append(best)
        for slow, value in at.items():
            if value is not None:
                levels[slow].append(value)
        above += ratio > 1.05
        beyond += min(pairs) > 1.05  # every pair of runs above: not the runs' own spread
        fastest_above += best > 1.05
        print(f"{key[0]:<20} {key[1]:>8} {lib:>11.2f} {cct:>9.2f} {ratio:>6.2f}  "
              f"{min(pairs):.2f}-{max(pairs):.2f}  {best:>7.2f}  " +
              "  ".join(f"{'-' if v is None else f'{v:.2f}':>7}" for v in at.values()))
    print(f"# {above} of {len(ratios)} rows above 1.05, {beyond} of them with every pair of runs "
          f"above 1.05; geometric mean of the ratios {statistics.geometric_mean(ratios):.2f}")
    print(f"# fastest runs: {fastest_above} of {len(fastest)} rows above 1.05; geometric mean "
          f"{statistics.geometric_mean(fastest):.2f}")
    for slow, values in levels.items():
        if values:
            print(f"# at the {'slow' if slow else 'fast'} level: {sum(v > 1.05 for v in values)} "
                  f"of {len(values)} rows above 1.05; geometric mean "
                  f"{statistics.geometric_mean(values):.2f}")

if __name__ == "__main__":
    main()
