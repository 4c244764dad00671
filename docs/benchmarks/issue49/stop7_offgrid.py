# The off-grid checks a profile misses by more than 5%, from its results file, each candidate by the
# slowest of its rows of the stages given (default check,recheck): what profile_accuracy
# (tuner/accuracy.cpp) counts, printed per size with each candidate's figures in us, a stage each.
# usage: stop7_offgrid.py RESULTS.csv PROFILE.yaml [STAGES]
import csv,sys,yaml,collections
res,prof=sys.argv[1],sys.argv[2]
stages=sys.argv[3].split(',') if len(sys.argv)>3 else ['check','recheck']
P=yaml.safe_load(open(prof))
def num(s):
    s=str(s)
    if s=='max': return 1<<62
    m={'k':1<<10,'M':1<<20,'G':1<<30}
    return int(s[:-1])*m[s[-1]] if s[-1] in m else int(s)
def fmt(v):
    for suf,m in (('M',1<<20),('k',1<<10)):
        if v>=m and v%m==0: return f"{v//m}{suf}"
    return str(v)
rows=list(csv.DictReader(open(res)))
pts=collections.defaultdict(lambda: collections.defaultdict(dict))
for r in rows:
    if r['stage'] in stages:
        c=r['algorithm']+('('+r['params']+')' if r['params'] else '')
        d=pts[(r['collective'],int(r['bytes']))][c]
        d[r['stage']]=max(d.get(r['stage'],0),float(r['median_s']))
def rule(c,b):
    for bk in P['rules'].get(c,{}).get('shm',[]):
        if bk.get('datatypes') or bk.get('roots'): continue
        for s in bk['sizes']:
            lo,hi=s['range']
            if num(lo)<=b<num(hi): return s
for (c,b),cands in sorted(pts.items()):
    s=rule(c,b)
    if not s: continue
    pr=s.get('params') or {}
    # csv param order differs; match as sets
    def same(cn):
        a=cn.split('(')[0]
        if a!=s['algorithm']: return False
        ps=set(cn[len(a)+1:-1].split(',')) if '(' in cn else set()
        return ps==set(f"{k}={fmt(v)}" for k,v in pr.items())
    ch=[k for k in cands if same(k)]
    if not ch: print('nochosen',c,b,s['algorithm'],pr,list(cands)); continue
    fig={k:max(v.values()) for k,v in cands.items()}
    f=min(fig,key=fig.get); ratio=fig[ch[0]]/fig[f]
    if ratio>1.05:
        print(f"{c:22s} {b:>8d} {ch[0]:32s} {ratio:5.2f}x {f:32s} " + ' '.join(f"{k}:{'/'.join('%.2f'%(x*1e6) for x in v.values())}" for k,v in cands.items()))
