# Each side of stop7_sides.py against the library, per replicate: the geometric mean of the plain
# medians' ratios, and at each latency level (tools/interposer_runs.py level_threshold, over every
# probe of the replicate; a level's median needs 2 runs of each side there), with the points above
# 1.05 in every replicate. usage: stop7_sides_show.py R1.json[.gz] R2.json R3.json (from the repository root)
import gzip, json, math, statistics, sys
sys.path.insert(0, 'tools')
from interposer_runs import level_threshold
reps = [json.load(gzip.open(p) if p.endswith('.gz') else open(p)) for p in sys.argv[1:]]
def ratios(res, side, level):
    thr = level_threshold(p for k in res for r in res[k] for _, p in r.values())
    def med(k, pt):
        v = [r[pt][0] for r in res[k] if pt in r and
             (level is None or (thr > 0 and r[pt][1] > thr) == (level == 'slow'))]
        return statistics.median(v) if len(v) >= 2 else None
    out = {}
    for pt in res['lib'][0]:
        a, b = med(side, pt), med('lib', pt)
        if a and b: out[pt] = a / b
    return out
def gm(xs): return math.exp(statistics.mean(math.log(x) for x in xs)) if xs else float('nan')
for side in [k for k in reps[0] if k != 'lib']:
    for level in (None, 'fast', 'slow'):
        rs = [ratios(res, side, level) for res in reps]
        common = set.intersection(*(set(r) for r in rs))
        losing = sorted((p for p in common if all(r[p] > 1.05 for r in rs)),
                        key=lambda p: (p.split()[0], int(p.split()[1])))
        print(f"{side:8s} {level or 'plain':5s} geomean " +
              ' / '.join(f"{gm(list(r.values())):.3f} ({len(r)})" for r in rs) +
              f"; above 1.05 in all {len(reps)}: {len(losing)}" +
              (": " + ', '.join(losing) if losing and len(losing) <= 40 else ''))
