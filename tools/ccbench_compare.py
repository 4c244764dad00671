#!/usr/bin/env python3
"""How two ccbench_runs.py tables differ: per cell (collective and size)
both hold, the quotient of their ratios cct/MPI (B over A), and over all
such cells its median and quartiles. Two timings of one profile that
differ in one thing (the build, ccbench's method) give how much that thing
moved the ratios; noise alone gives a median near 1.

usage: tools/ccbench_compare.py A.txt B.txt [--cells]
--cells also prints every cell's ratios and quotient.
"""
import argparse
import statistics
import sys

from ccbench_runs import read_table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--cells", action="store_true")
    opts = parser.parse_args()
    tables = []
    for path in (opts.a, opts.b):
        with open(path) as f:
            tables.append(read_table(f.read()))
    a, b = tables
    cells = [key for key in a if key in b and a[key][0] > 0]
    if len(cells) < 2:
        sys.exit(f"ccbench_compare.py: the tables have {len(cells)} cells in common; "
                 "quartiles need 2 or more")
    quotients = {key: b[key][0] / a[key][0] for key in cells}
    if opts.cells:
        for key, q in quotients.items():
            print(f"{key[0]:<22}{key[1]:>6}{a[key][0]:>7.2f}{b[key][0]:>7.2f}{q:>7.2f}")
    low, median, high = statistics.quantiles(quotients.values(), n=4)
    print(f"{len(cells)} cells; ratio B/A: median {median:.2f}, quartiles {low:.2f}-{high:.2f}, "
          f"lowest {min(quotients.values()):.2f}, highest {max(quotients.values()):.2f}")


if __name__ == "__main__":
    sys.exit(main())
