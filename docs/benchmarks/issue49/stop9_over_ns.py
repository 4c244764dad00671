# For the points of SIDE above 1.05 in every replicate (plain medians), the medians' difference in ns
# (issue 49, ninth stop). usage: stop9_over_ns.py SIDE R1.json[.gz] ...   (stop7_sides.py's files)
import gzip,json,statistics,sys
side=sys.argv[1]; reps=[json.load(gzip.open(p) if p.endswith('.gz') else open(p)) for p in sys.argv[2:]]
pts=reps[0]['lib'][0].keys()
rows=[]
for pt in pts:
    d=[];r=[]
    for res in reps:
        a=statistics.median(x[pt][0] for x in res[side] if pt in x); b=statistics.median(x[pt][0] for x in res['lib'] if pt in x)
        r.append(a/b); d.append(a-b)
    if all(x>1.05 for x in r): rows.append((pt,r,d))
for pt,r,d in rows: print(f"{pt:28s} ratios {' '.join(f'{x:.2f}' for x in r)}  over by {' '.join(f'{x*1000:.0f}' for x in d)} ns")
print(len(rows),'points;', sum(1 for _,_,d in rows if max(d)<=0.0105),'of them at most 10 ns over in every replicate')
