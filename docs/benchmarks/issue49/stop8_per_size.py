# Per collective and size, the median over replicates of a side's median ratio to the library's,
# plain or within a latency level (as stop7_sides_show.py splits them), from stop7_sides.py's files.
# usage: stop8_per_size.py SIDE plain|fast|slow R1.json[.gz] ...   (from the repository root)
import gzip,json,statistics,sys
sys.path.insert(0,'tools')
from interposer_runs import level_threshold
side,level=sys.argv[1],sys.argv[2]
reps=[json.load(gzip.open(p) if p.endswith('.gz') else open(p)) for p in sys.argv[3:]]
from collections import defaultdict
tab=defaultdict(dict)
def med(res,k,pt,thr):
    v=[r[pt][0] for r in res[k] if pt in r and (level=='plain' or (r[pt][1]>thr)==(level=='slow'))]
    return statistics.median(v) if len(v)>=2 else None
for pt in reps[0]['lib'][0]:
    rs=[]
    for res in reps:
        thr=level_threshold(p for k in res for r in res[k] for _, p in r.values())
        a,b=med(res,side,pt,thr),med(res,'lib',pt,thr)
        if a and b: rs.append(a/b)
    c,s=pt.split(); tab[c][int(s)]=statistics.median(rs) if rs else None
for c in tab: print(c[:14].ljust(14),' '.join(f"{tab[c][s]:.2f}" if tab[c][s] else ' -- ' for s in sorted(tab[c])))
