#!/usr/bin/env python3
"""Runs ccbench several times and prints, per row, the median over the runs.

On a small virtual machine a whole ccbench process can land in a slow state
for one side (a large-message row 2-3x slower for the MPI library in one
process, for the runtime in the next), so one run's ratio can mislead. Each
run still measures both sides in the same process, interleaved; this script
only takes, per collective and size, the median of the runs' figures and of
their ratios, and shows the spread of the ratios.

usage: tools/ccbench_runs.py [--runs N] [--np N] [--mpirun COMMAND]
                             -- [ccbench arguments]
--mpirun: the command that starts the ranks, "-np N ccbench ..." appended
(default "mpirun --allow-run-as-root --oversubscribe"; across emulated
hosts "tests/cluster/hosts.sh mpirun DIR -x CCT_PROFILE ...").
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_once(mpirun, np, ccbench, args):
    cmd = shlex.split(mpirun) + ["-np", str(np), ccbench] + args
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    header, rows = [], {}
    for line in out.splitlines():
        fields = line.split()
        if fields[:1] == ["collective"]:
            continue  # the column titles; this script prints its own
        if len(fields) < 7 or not _is_number(fields[2]):
            header.append(line)
            continue
        rows[(fields[0], fields[1])] = fields
    return header, rows


def read_table(text):
    """{(collective, bytes): (ratio, algorithm)} from a table this script
    printed: the median ratio cct/MPI of each row and the profile's choice."""
    rows = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 9 and _is_number(fields[2]) and _is_number(fields[6]):
            rows[(fields[0], fields[1])] = (float(fields[6]), " ".join(fields[8:]))
    return rows


def _median(rows, column):
    """The median of a column over the runs, as text; "-" where ccbench printed none."""
    values = [float(f[column]) for f in rows if _is_number(f[column])]
    return f"{statistics.median(values):.2f}" if values else "-"


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--mpirun", default="mpirun --allow-run-as-root --oversubscribe")
    parser.add_argument("--ccbench", default=os.path.join(HERE, "..", "build", "bin", "ccbench"))
    parser.add_argument("args", nargs="*", help="passed to ccbench (after --)")
    opts = parser.parse_args()
    if opts.runs < 1:
        parser.error("--runs must be at least 1")
    runs = [run_once(opts.mpirun, opts.np, opts.ccbench, opts.args) for _ in range(opts.runs)]
    header, first = runs[0]
    print("\n".join(line for line in header if line.strip()))
    print(f"medians over {opts.runs} ccbench runs; ratio range is the runs' lowest and highest;")
    print("copy and split: the machine's copy limit for the size (see ccbench --help)")
    print(f"{'collective':<11}{'bytes':>7}{'MPI':>10}{'copy':>10}{'split':>10}{'cct':>10}"
          f"{'cct/MPI':>9}  {'range':<11}  algorithm")
    for key, fields in first.items():
        seen = [rows[key] for _, rows in runs if key in rows]
        # Columns: collective bytes MPI copy split cct cct/MPI algorithm
        mpi, copy, split, ours = (_median(seen, i) for i in (2, 3, 4, 5))
        ratios = [float(f[6]) for f in seen]
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
        print(f"{key[0]:<11}{key[1]:>7}{mpi:>10}{copy:>10}{split:>10}{ours:>10}"
              f"{statistics.median(ratios):>9.2f}  {spread:<11}  {' '.join(fields[7:])}")


if __name__ == "__main__":
    sys.exit(main())
