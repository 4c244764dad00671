# How far selection alone can go (issue 49, eighth stop): from a tune's results file, at each point
# osu_style_bench times (every collective but the barrier, powers of two 1 B - 1 MiB), the fastest
# confirmed candidate's figure over the library's, each by the slower of its two jobs' confirmations
# (stages confirm and reconfirm; root 0, the measured element type). The geometric mean over the
# points is what a profile would reach if every pick were the fastest the tuner timed and if its
# figures held outside; the tuner's figures flatter its algorithms' small calls against the
# library's (the outside check's give-backs), so outside it can only be worse.
# usage: stop8_bound.py RESULTS.csv   (from the repository root)
import csv, math, statistics, sys
from collections import defaultdict
slowest = defaultdict(dict)  # (collective, bytes) -> candidate -> slowest confirmation, s
for r in csv.DictReader(open(sys.argv[1])):
    b = int(r['bytes'])
    if r['stage'] not in ('confirm', 'reconfirm') or r['root'] or r['datatype']:
        continue
    if r['collective'] == 'barrier' or not 1 <= b <= 1 << 20 or b & (b - 1):
        continue
    key, cand = (r['collective'], b), r['algorithm'] + '(' + r['params'] + ')'
    slowest[key][cand] = max(slowest[key].get(cand, 0), float(r['median_s']))
ratios = defaultdict(dict)  # collective -> bytes -> fastest / library
for (coll, b), cands in sorted(slowest.items()):
    if 'mpi()' in cands:
        ratios[coll][b] = min(cands.values()) / cands['mpi()']
def gm(xs): return math.exp(statistics.mean(math.log(x) for x in list(xs)))
for coll, rs in ratios.items():
    print(f"{coll:22s} {len(rs):3d} points  fastest / library: geometric mean {gm(rs.values()):.2f}, "
          f"least {min(rs.values()):.2f}")
every = [x for rs in ratios.values() for x in rs.values()]
small = [x for rs in ratios.values() for b, x in rs.items() if b <= 2048]
print(f"all {len(every)} points: geometric mean {gm(every):.3f}; the {len(small)} at 1 B - 2 KiB {gm(small):.3f}")
