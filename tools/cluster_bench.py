#!/usr/bin/env python3
"""The tuned runtime against Open MPI's own collectives across emulated hosts.

For each link limit (none, or Mbit/s through tc tbf) and each number of
ranks per host: brings up HOSTS hosts (tests/cluster/hosts.sh; needs root),
tunes them with `ccautotune --launcher mpirun --hostfile` started inside
host 1 (the shape of all their ranks only), then times the profile's
choices against Open MPI's calls with tools/ccbench_runs.py (both sides in
one process, medians of RUNS runs), and removes the hosts. Writes
OUT/cluster-<H>x<R>-<limit>.yaml (the profile), .csv (its measurements),
.tune.log and .txt (ccbench's table). With --outside the profile is timed
from outside instead, as a user measures it: tools/interposer_runs.py
(osu_style_bench on Open MPI alone and under the interposer, RUNS runs a
side alternated, medians; 1 B up to --max-bytes), its table in
.outside.txt. With more
ranks than the machine has cores the table is headed OVERSUBSCRIBED, and
Open MPI is told so (mpi_yield_when_idle, which it sets by itself when
it sees more ranks than slots; each emulated host has slots for its ranks,
so it does not see it): spinning without yielding, a 4 KiB allreduce of
4 ranks on 2 cores took a scheduler tick (4-8 ms) on both sides.

usage: tools/cluster_bench.py OUT [--hosts H] [--ranks 1,2] [--mbit none,10000,1000]
                              [--collectives a,b,..] [--min-bytes 64] [--max-bytes 1M]
                              [--runs N] [--build DIR] [--reuse-profiles] [--outside]
       tools/cluster_bench.py OUT --summary [--sizes 64,4k,64k,1M] [--ranks ..] [--mbit ..]
--reuse-profiles times the profiles an earlier run left in OUT instead of
tuning again (the tables change, the profiles and tuning logs stay).
--summary measures nothing: it prints the ratios cct/MPI of the tables in
OUT at those sizes, one Markdown table per number of ranks per host whose
cells hold the figures of the link limits of --mbit, in that order.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

from ccbench_runs import read_table
from emulated_hosts import ROOT, Hosts

COLLECTIVES = "barrier,bcast,allreduce,allgather,reduce_scatter_block,allgatherv"


def tune(hosts, opts, name):
    """The profile of these hosts, tuned by a job of all their ranks."""
    out = os.path.join(opts.out, name + ".tune")
    with open(os.path.join(opts.out, name + ".tune.log"), "w") as log:
        subprocess.run(hosts.in_host1([
            os.path.join(opts.build, "bin", "ccautotune"), "--launcher", "mpirun", "--hostfile",
            os.path.join(hosts.dir, "hostfile"), "--mpirun-args",
            " ".join([f"-np {hosts.np} --bind-to none"] + hosts.yielding()),
            "--ranks-per-node", str(hosts.np // opts.hosts), "--collectives", opts.collectives,
            "--min-bytes", opts.min_bytes, "--max-bytes", opts.max_bytes, "--out", out]),
            check=True, stdout=log, stderr=subprocess.STDOUT)
    for made in glob.glob(os.path.join(out, "*")):
        shutil.move(made, os.path.join(opts.out, name + os.path.splitext(made)[1]))
    os.rmdir(out)
    return os.path.join(opts.out, name + ".yaml")


def bench(hosts, opts, name, profile):
    """ccbench's table of the profile's choices against Open MPI's calls."""
    mpirun = (hosts.mpirun() + ["--bind-to", "none", "-x", f"CCT_PROFILE={profile}"]
              + hosts.yielding())
    table = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "ccbench_runs.py"), "--runs",
         str(opts.runs), "--np", str(hosts.np), "--mpirun", shlex.join(mpirun), "--ccbench",
         os.path.join(opts.build, "bin", "ccbench"), "--", "--collectives", opts.collectives,
         "--min-bytes", opts.min_bytes, "--max-bytes", opts.max_bytes],
        check=True, capture_output=True, text=True).stdout
    with open(os.path.join(opts.out, name + ".txt"), "w") as f:
        f.write(table)
    return table


def outside(hosts, opts, name, profile):
    """interposer_runs.py's table of the profile, from outside, on these hosts."""
    mpirun = hosts.mpirun() + ["--bind-to", "none"] + hosts.yielding()
    table = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "interposer_runs.py"), "--runs",
         str(opts.runs), "--np", str(hosts.np), "--profile", profile, "--max-bytes",
         str(parse_bytes(opts.max_bytes)), "--build", opts.build, "--mpirun", shlex.join(mpirun)],
        check=True, capture_output=True, text=True).stdout
    with open(os.path.join(opts.out, name + ".outside.txt"), "w") as f:
        f.write(table)
    return table


def parse_bytes(text):
    """64, 4k, 1M: bytes."""
    units = {"k": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def size_label(size):
    """"64" -> "64 B", "4k" -> "4 KiB", "1M" -> "1 MiB"."""
    return size[:-1] + {"k": " KiB", "M": " MiB"}[size[-1]] if size[-1] in "kM" else size + " B"


def summary(opts):
    """Per ranks per host, one Markdown table of the ratios cct/MPI whose
    cells give every link limit's figure, in the order of --mbit."""
    sizes, limits = opts.sizes.split(","), opts.mbit.split(",")
    for ranks in opts.ranks.split(","):
        names = [f"cluster-{opts.hosts}x{ranks}-{limit}" for limit in limits]
        paths = [os.path.join(opts.out, name + ".txt") for name in names]
        missing = [path for path in paths if not os.path.exists(path)]
        if missing:
            sys.exit(f"cluster_bench.py: --summary: no {', '.join(missing)} (run the setups first)")
        texts = []
        for path in paths:
            with open(path) as f:
                texts.append(f.read())
        tables = [read_table(text) for text in texts]
        np, threads = re.search(r"(\d+) ranks on .* (\d+) hardware threads", texts[0]).groups()
        crowded = f" (OVERSUBSCRIBED: {np} ranks on {threads} cores)" if int(np) > int(threads) else ""
        print(f"{opts.hosts} hosts x {ranks} rank{'s' if ranks != '1' else ''}{crowded}, "
              f"ratios cct/MPI, link limit {' / '.join(limits)} Mbit/s:\n")
        print("| collective | " + " | ".join(size_label(s) for s in sizes) + " |")
        print("| --- |" + " ---: |" * len(sizes))

        def cell(collective, size):
            return " / ".join(f"{t[(collective, size)][0]:.2f}" if (collective, size) in t else "-"
                              for t in tables)

        for collective in opts.collectives.split(","):
            if (collective, "0") in tables[0]:  # the barrier's one size, in the first column
                print(f"| {collective} (0 B) | {cell(collective, '0')} |" + " |" * (len(sizes) - 1))
            else:
                print(f"| {collective} | " + " | ".join(cell(collective, s) for s in sizes) + " |")
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--ranks", default="1,2", help="ranks per host, one setup each")
    parser.add_argument("--mbit", default="none,10000,1000",
                        help="link limits in Mbit/s, one setup each (none: no limit)")
    parser.add_argument("--collectives", default=COLLECTIVES)
    parser.add_argument("--min-bytes", default="64")
    parser.add_argument("--max-bytes", default="1M")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--reuse-profiles", action="store_true")
    parser.add_argument("--outside", action="store_true",
                        help="time the profile with interposer_runs.py instead of ccbench")
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--sizes", default="64,4k,64k,1M", help="with --summary")
    opts = parser.parse_args()
    if opts.summary:
        return summary(opts)
    os.makedirs(opts.out, exist_ok=True)
    for limit in opts.mbit.split(","):
        for ranks in (int(r) for r in opts.ranks.split(",")):
            name = f"cluster-{opts.hosts}x{ranks}-{limit}"
            profile = os.path.join(opts.out, name + ".yaml")
            if opts.reuse_profiles and not os.path.exists(profile):
                sys.exit(f"cluster_bench.py: --reuse-profiles: no {profile}")
            with Hosts(opts.hosts, ranks, None if limit == "none" else int(limit)) as hosts:
                if not opts.reuse_profiles:
                    profile = tune(hosts, opts, name)
                table = (outside if opts.outside else bench)(hosts, opts, name, profile)
            crowded = hosts.np > os.cpu_count()
            print(f"== {opts.hosts} hosts x {ranks} ranks, link limit {limit} Mbit/s"
                  + (f" (OVERSUBSCRIBED: {hosts.np} ranks on {os.cpu_count()} cores)"
                     if crowded else ""))
            print(table, flush=True)


if __name__ == "__main__":
    sys.exit(main())
