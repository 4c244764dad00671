#!/usr/bin/env python3
"""What a call the profile keeps on the MPI library costs over the library.

Runs build/bin/call_overhead (a plain MPI program: one small collective
call back to back, the mean time per call) on the MPI library alone and
under the interposer of each build given, alternated round by round so
that a slow spell of the machine lands on every side, for each collective
and communicator size; prints per point the median over the rounds of each
side's ns per call and of its difference from the library's in the same
round. With --profile the interposer reads that profile (CCT_PROFILE);
with --force, CCT_FORCE (e.g. "alltoallv:0-max:mpi").

usage: tools/kept_overhead.py [--rounds N] [--calls N] [--np 1,2]
                              [--collectives alltoallv,gatherv]
                              [--profile FILE] [--force RULES]
                              [--build DIR ...]
"""
import argparse
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ns_per_call(args, np, collective, build=None):
    env = dict(os.environ)
    cmd = ["mpirun", "--oversubscribe", "-np", str(np)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    env.pop("LD_PRELOAD", None)
    if build:
        env["LD_PRELOAD"] = os.path.join(build, "lib", "libcct_mpi.so")
        env["CCT_PROFILE"] = args.profile or "none"
        cmd += ["-x", "LD_PRELOAD", "-x", "CCT_PROFILE"]
        if args.force:
            env["CCT_FORCE"] = args.force
            cmd += ["-x", "CCT_FORCE"]
    program = os.path.join(args.build[0], "bin", "call_overhead")
    cmd += [program, str(args.calls), "1", collective]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return float(out.split()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200000)
    parser.add_argument("--np", default="1,2")
    parser.add_argument("--collectives", default="alltoallv,gatherv,scatterv,allgatherv")
    parser.add_argument("--profile")
    parser.add_argument("--force")
    parser.add_argument("--build", nargs="+", default=[os.path.join(ROOT, "build")],
                        help="build directories whose interposer is timed (the first's "
                             "call_overhead runs every side)")
    args = parser.parse_args()
    sides = ["library"] + args.build
    print(f"# {args.rounds} rounds alternated, {args.calls} calls each; profile "
          f"{args.profile or 'none'}{', CCT_FORCE=' + args.force if args.force else ''}")
    header = f"{'collective':<11} {'np':>2} {'library ns':>10}"
    for b in args.build:
        header += f"  {os.path.basename(os.path.dirname(os.path.abspath(b)))[:12] + ' ns':>15} {'over':>6}"
    print(header)
    for collective in args.collectives.split(","):
        for np in [int(n) for n in args.np.split(",")]:
            times = {s: [] for s in sides}
            for _ in range(args.rounds):
                for s in sides:
                    times[s].append(ns_per_call(args, np, collective,
                                                None if s == "library" else s))
            line = f"{collective:<11} {np:>2} {statistics.median(times['library']):>10.1f}"
            for b in args.build:
                over = [t - lib for t, lib in zip(times[b], times["library"])]
                line += f"  {statistics.median(times[b]):>15.1f} {statistics.median(over):>+6.1f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
