#!/usr/bin/env python3
"""The tuned runtime against Open MPI's own collectives across emulated hosts.

For each link limit (none, or Mbit/s through tc tbf) and each number of
ranks per host: brings up HOSTS hosts (tests/cluster/hosts.sh; needs root),
tunes them with `ccautotune --launcher mpirun --hostfile` started inside
host 1 (the shape of all their ranks only), then times the profile's
choices against Open MPI's calls with tools/ccbench_runs.py (both sides in
one process, medians of RUNS runs), and removes the hosts. Writes
OUT/cluster-<H>x<R>-<limit>.yaml (the profile), .csv (its measurements),
.tune.log and .txt (ccbench's table). With more
ranks than the machine has cores the table is headed OVERSUBSCRIBED, and
Open MPI is told so (mpi_yield_when_idle, which it sets by itself when
it sees more ranks than slots; each emulated host has slots for its ranks,
so it does not see it): spinning without yielding, a 4 KiB allreduce of
4 ranks on 2 cores took a scheduler tick (4-8 ms) on both sides.

usage: tools/cluster_bench.py OUT [--hosts H] [--ranks 1,2] [--mbit none,10000,1000]
                              [--collectives a,b,..] [--min-bytes 64] [--max-bytes 1M]
                              [--runs N] [--build DIR] [--reuse-profiles]
       tools/cluster_bench.py OUT --summary [--sizes 64,4k,64k,1M]
--reuse-profiles times the profiles an earlier run left in OUT instead of
tuning again (the tables change, the profiles and tuning logs stay).
--summary measures nothing: it prints the ratios cct/MPI of the tables in
OUT at those sizes, one Markdown table per setup.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

from emulated_hosts import ROOT, Hosts

COLLECTIVES = "barrier,bcast,allreduce,allgather,reduce_scatter_block,allgatherv"


def yielding(hosts):
    """mpirun's options that make Open MPI yield where ranks outnumber cores."""
    return ["--mca", "mpi_yield_when_idle", "1"] if hosts.np > os.cpu_count() else []


def tune(hosts, opts, name):
    """The profile of these hosts, tuned by a job of all their ranks."""
    out = os.path.join(opts.out, name + ".tune")
    with open(os.path.join(opts.out, name + ".tune.log"), "w") as log:
        subprocess.run(hosts.in_host1([
            os.path.join(opts.build, "bin", "ccautotune"), "--launcher", "mpirun", "--hostfile",
            os.path.join(hosts.dir, "hostfile"), "--mpirun-args",
            " ".join([f"-np {hosts.np} --bind-to none"] + yielding(hosts)),
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
              + yielding(hosts))
    table = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "ccbench_runs.py"), "--runs",
         str(opts.runs), "--np", str(hosts.np), "--mpirun", " ".join(mpirun), "--ccbench",
         os.path.join(opts.build, "bin", "ccbench"), "--", "--collectives", opts.collectives,
         "--min-bytes", opts.min_bytes, "--max-bytes", opts.max_bytes],
        check=True, capture_output=True, text=True).stdout
    with open(os.path.join(opts.out, name + ".txt"), "w") as f:
        f.write(table)
    return table


def ratios(table, sizes):
    """{collective: {size: "ratio"}} from a ccbench_runs.py table."""
    found = {}
    for line in table.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[1] in sizes + ["0"] and re.fullmatch(r"[\d.]+", fields[6]):
            found.setdefault(fields[0], {})[fields[1]] = fields[6]
    return found


def summary(opts):
    sizes = opts.sizes.split(",")
    for path in sorted(glob.glob(os.path.join(opts.out, "cluster-*.txt"))):
        with open(path) as f:
            found = ratios(f.read(), sizes)
        print(f"{os.path.basename(path)}\n")
        print("| collective | " + " | ".join(sizes) + " |")
        print("| --- |" + " ---: |" * len(sizes))
        for collective, by_size in found.items():
            if list(by_size) == ["0"]:  # the barrier's one size, in the first column
                print(f"| {collective} (0 B) | {by_size['0']} |" + " |" * (len(sizes) - 1))
                continue
            print(f"| {collective} | " + " | ".join(by_size.get(s, "-") for s in sizes) + " |")
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
                table = bench(hosts, opts, name, profile)
            crowded = hosts.np > os.cpu_count()
            print(f"== {opts.hosts} hosts x {ranks} ranks, link limit {limit} Mbit/s"
                  + (f" (OVERSUBSCRIBED: {hosts.np} ranks on {os.cpu_count()} cores)"
                     if crowded else ""))
            print(table, flush=True)


if __name__ == "__main__":
    sys.exit(main())
