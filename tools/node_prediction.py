#!/usr/bin/env python3
"""Rules predicted for a node count that was not measured, checked on emulated hosts.

Brings up HOSTS emulated hosts of one rank each (tests/cluster/hosts.sh;
needs root), their links limited to MBIT Mbit/s, and with `ccautotune
--launcher mpirun --hostfile` started inside host 1:
1. tunes the first hosts in shapes of the node counts of --tuned (default
   2) into OUT/tuned: their rules, and those the cost model predicts from
   them for HOSTS nodes (--predict-nodes);
2. builds a profile from the same rows (a copy, --resume) into
   OUT/stretched whose other node count is far beyond (--predict-nodes
   1024), so that HOSTS nodes take the rules of the largest tuned count,
   as the runtime does with a profile without a prediction for them;
3. tunes all HOSTS hosts (--nodes HOSTS) into OUT/measured;
then removes the hosts and prints `ccprofile check` of both profiles on
the HOSTS-node measurements (how often each picks within 5% of the
fastest) into OUT/check.txt. With more ranks than cores, Open MPI is told
to yield (Hosts.yielding).

usage: tools/node_prediction.py OUT [--hosts 4] [--tuned 2] [--mbit 1000]
                                [--collectives a,b,..] [--min-bytes 1] [--max-bytes 1M]
                                [--build DIR]
"""
import argparse
import glob
import os
import shutil
import subprocess

from emulated_hosts import ROOT, Hosts


def tune(hosts, opts, out, extra):
    """ccautotune across the hosts into out; its log beside it."""
    mpirun_args = " ".join([f"-np {hosts.np} --bind-to none"] + hosts.yielding())
    with open(out + ".log", "w") as log:
        subprocess.run(hosts.in_host1([
            os.path.join(opts.build, "bin", "ccautotune"), "--launcher", "mpirun", "--hostfile",
            os.path.join(hosts.dir, "hostfile"), "--mpirun-args", mpirun_args,
            "--ranks-per-node", "1", "--collectives", opts.collectives, "--min-bytes",
            opts.min_bytes, "--max-bytes", opts.max_bytes, "--out", out] + extra),
            check=True, stdout=log, stderr=subprocess.STDOUT)


def check(opts, profile_dir, measured_dir):
    """ccprofile check's lines for the profile in profile_dir on the measured rows."""
    profile = glob.glob(os.path.join(profile_dir, "*.yaml"))[0]
    results = glob.glob(os.path.join(measured_dir, "*.csv"))[0]
    return subprocess.run([os.path.join(opts.build, "bin", "ccprofile"), "check", profile,
                           results, "--nodes", str(opts.hosts)],
                          check=True, capture_output=True, text=True).stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--hosts", type=int, default=4)
    parser.add_argument("--tuned", default="2", help="node counts tuned, below --hosts")
    parser.add_argument("--mbit", default="1000")
    parser.add_argument("--collectives", default="bcast,allreduce,allgather,reduce")
    parser.add_argument("--min-bytes", default="1")
    parser.add_argument("--max-bytes", default="1M")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    opts = parser.parse_args()
    if max(int(n) for n in opts.tuned.split(",")) >= opts.hosts:
        parser.error("--tuned: node counts below --hosts (those are predicted, then measured)")
    os.makedirs(opts.out, exist_ok=True)
    tuned, stretched, measured = (os.path.join(opts.out, d)
                                  for d in ("tuned", "stretched", "measured"))
    with Hosts(opts.hosts, 1, None if opts.mbit == "none" else opts.mbit) as hosts:
        tune(hosts, opts, tuned, ["--nodes", opts.tuned, "--predict-nodes", str(opts.hosts)])
        shutil.copytree(tuned, stretched)
        tune(hosts, opts, stretched, ["--nodes", opts.tuned, "--predict-nodes", "1024", "--resume"])
        tune(hosts, opts, measured, ["--nodes", str(opts.hosts)])
    report = (f"{opts.hosts} hosts x 1 rank, links {opts.mbit} Mbit/s, tuned on {opts.tuned}\n"
              f"rules predicted:\n{check(opts, tuned, measured)}"
              f"largest tuned count's rules stretched (no model):\n"
              f"{check(opts, stretched, measured)}")
    with open(os.path.join(opts.out, "check.txt"), "w") as f:
        f.write(report)
    print(report, end="")


if __name__ == "__main__":
    main()
