# Each build against the library at the fast latency level (tools/interposer_runs.py level_threshold),
# from stop6_ab_builds.py output. usage: stop6_ab_builds_show.py OUT.json (run from the repository root)
import json,sys,statistics,math
sys.path.insert(0,'tools')
from interposer_runs import level_threshold
res=json.load(open(sys.argv[1]))
thr=level_threshold(p for k in res for r in res[k] for _,p in r.values())
pts=list(res['lib'][0])
def med(k,p):
  v=[r[p][0] for r in res[k] if not (r[p][1]>thr)]
  return statistics.median(v) if len(v)>=2 else None
for k in ('old','new'):
  rs=[(p,med(k,p)/med('lib',p)) for p in pts if med(k,p) and med('lib',p)]
  g=math.exp(statistics.mean(math.log(x) for _,x in rs))
  small=[x for p,x in rs if int(p.split()[1])<=2048]
  print(k,'fast level: geomean %.3f over %d points, <=2KiB %.3f; reduce_scatter<=256 %.3f'%(g,len(rs),math.exp(statistics.mean(math.log(x) for x in small)),
     math.exp(statistics.mean(math.log(x) for p,x in rs if p.startswith('reduce_scatter ') and int(p.split()[1])<=256))))
for k in res: print(k,'fast runs-points share %.2f'%statistics.mean(not p>thr for r in res[k] for _,p in r.values()))
