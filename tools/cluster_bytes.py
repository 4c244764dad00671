#!/usr/bin/env python3
"""Bytes that cross the network per collective call, across emulated hosts.

Brings up HOSTS hosts of RANKS ranks each (tests/cluster/hosts.sh: network
namespaces on a bridge of their own; needs root) and, per collective and
size, runs `osu_style_bench loop` (that collective, nothing else) once with
FEW and once with MANY calls, reading the bridge's port counters around each
run. (bytes(MANY) - bytes(FEW)) / (MANY - FEW) is what one call sent across
the network: the job's start and end cancel out. The counters count what the
wire carries: the payload and its Ethernet, IP and TCP headers and TCP's
acknowledgements. Unlike times, these figures do not depend on the machine's
load.

Sides: Open MPI's own call (no interposer), and the runtime under the
interposer with one algorithm forced (CCT_FORCE) for every size; its
CCT_STATS must show that algorithm ran on MPI_COMM_WORLD, or the row says
it did not.

usage: tools/cluster_bytes.py [--hosts H] [--ranks R] [--sizes 64k,1M]
                              [--runs N] [--map-by slot|node] [--build DIR]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

from emulated_hosts import ROOT, Hosts

FEW, MANY = 10, 60

# Per collective, the runtime's algorithms to count: the built-in flat
# default (and allreduce's bandwidth-bound ring), and the hierarchical one.
ALGORITHMS = {
    "bcast": ["binomial", "multinode"],
    "allreduce": ["recursive_doubling", "ring", "multinode"],
    "allgather": ["ring", "multinode"],
}
UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20}


def parse_size(text):
    match = re.fullmatch(r"(\d+)([kKmM]?)", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a size such as 64k or 1M")
    return int(match.group(1)) * UNITS[match.group(2).lower()]


def sent(hosts, build, collective, size, calls, algorithm, map_by):
    """Bytes across the network for one job of `calls` calls; for an
    algorithm, also whether CCT_STATS shows it ran."""
    cmd = hosts.mpirun() + ["-np", str(hosts.np), "--bind-to", "none", "--map-by", map_by]
    if algorithm:
        cmd += ["-x", f"LD_PRELOAD={build}/lib/libcct_mpi.so", "-x", "CCT_STATS=1",
                "-x", f"CCT_FORCE={collective}:0-max:{algorithm}"]
    cmd += [f"{build}/bin/osu_style_bench", "loop", collective, str(size), str(calls)]
    before = hosts.sent_bytes()
    job = subprocess.run(cmd, check=True, capture_output=True, text=True)
    ran = not algorithm or re.search(rf"^world +\d+ +{collective} +{algorithm}\b",
                                     job.stderr, re.M) is not None
    return hosts.sent_bytes() - before, ran


def per_call(hosts, opts, collective, size, algorithm):
    """Bytes one call sends across the network, or None where the forced
    algorithm did not run."""
    few, ran_few = sent(hosts, opts.build, collective, size, FEW, algorithm, opts.map_by)
    many, ran_many = sent(hosts, opts.build, collective, size, MANY, algorithm, opts.map_by)
    return (many - few) / (MANY - FEW) if ran_few and ran_many else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--ranks", type=int, default=2, help="ranks per host")
    parser.add_argument("--sizes", default="64k,1M")
    parser.add_argument("--runs", type=int, default=3, help="figures are medians over these")
    parser.add_argument("--map-by", default="slot", choices=["slot", "node"],
                        help="mpirun's placement: slot fills host 1 first, node deals "
                             "ranks round the hosts")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    opts = parser.parse_args()
    sizes = [parse_size(s) for s in opts.sizes.split(",")]
    print(f"{opts.hosts} hosts x {opts.ranks} ranks (--map-by {opts.map_by}); bytes that crossed "
          f"the network per call (bridge port counters, jobs of {MANY} and {FEW} calls), "
          f"medians of {opts.runs} runs")
    print(f"{'collective':<11}{'bytes':>9}  {'side':<24}{'KiB/call':>10}  {'range':<17}"
          f"{'x Open MPI':>10}")
    with Hosts(opts.hosts, opts.ranks) as hosts:
        for collective, algorithms in ALGORITHMS.items():
            for size in sizes:
                library = None
                for algorithm in [None] + algorithms:
                    figures = [per_call(hosts, opts, collective, size, algorithm)
                               for _ in range(opts.runs)]
                    side = f"cct {algorithm}" if algorithm else "Open MPI"
                    if None in figures:
                        print(f"{collective:<11}{size:>9}  {side:<24}{'did not run':>10}")
                        continue
                    kib = statistics.median(figures) / 1024
                    library = library or kib
                    spread = f"{min(figures) / 1024:.1f}-{max(figures) / 1024:.1f}"
                    print(f"{collective:<11}{size:>9}  {side:<24}{kib:>10.1f}  {spread:<17}"
                          f"{kib / library:>10.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
