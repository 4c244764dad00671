#!/usr/bin/env python3
"""What a call the profile keeps on the MPI library costs over the library.

Runs build/bin/call_overhead (a plain MPI program: one small collective
call back to back, the mean time per call) on the MPI library alone and
under the interposer of each build given, alternated round by round so
that a slow spell of the machine lands on every side, for each collective
and communicator size; prints per point the median over the rounds of each
side's ns per call and of its difference from the library's in the same
round. Fresh processes differ by tens of ns at np 2 on the project's VM
(the library alone against itself), so each run also times the same calls
through the PMPI_ entry points in the same process (call_overhead's
"paired"): "in-process" is the median of the MPI_ calls' time over the
PMPI_ ones', under the interposer and, as the floor of that measure, on
the library alone. With --profile the interposer reads that profile
(CCT_PROFILE); with --force, CCT_FORCE (e.g. "alltoallv:0-max:mpi").

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
    cmd += [program, str(args.calls), "1", collective, "paired"]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    # "<ns> ns/call, <ns> ns/call direct": through MPI_, through PMPI_
    fields = out.split()
    return float(fields[0]), float(fields[2])


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
    header = f"{'collective':<11} {'np':>2} {'library ns':>10} {'in-process':>10}"
    for b in args.build:
        header += (f"  {os.path.basename(os.path.dirname(os.path.abspath(b)))[:12] + ' ns':>15}"
                   f" {'over':>6} {'in-process':>10}")
    print(header)
    for collective in args.collectives.split(","):
        for np in [int(n) for n in args.np.split(",")]:
            times = {s: [] for s in sides}
            for _ in range(args.rounds):
                for s in sides:
                    times[s].append(ns_per_call(args, np, collective,
                                                None if s == "library" else s))
            def median(side, of):
                return statistics.median(of(run) for run in times[side])

            def in_process(run):
                return run[0] - run[1]

            line = (f"{collective:<11} {np:>2} {median('library', lambda r: r[0]):>10.1f}"
                    f" {median('library', in_process):>+10.1f}")
            for b in args.build:
                over = [t[0] - lib[0] for t, lib in zip(times[b], times["library"])]
                line += (f"  {median(b, lambda r: r[0]):>15.1f} {statistics.median(over):>+6.1f}"
                         f" {median(b, in_process):>+10.1f}")
            print(line, flush=True)


if __name__ == "__main__":
    main()
