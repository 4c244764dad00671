# The run behind stop7_threshold_micro.json (issue 49, seventh stop): four collectives forced onto
# algorithms that move their data by the shm transport's point-to-point messages, under the
# interposer with CCT_SHM_CMA_THRESHOLD at 16 KiB and at 32 KiB (the default), and the library
# alone, alternated run by run; prints each point's median at each latency level (runs there).
# usage: stop7_threshold_micro.py PROFILE RUNS OUT.json   (the profile only names the machine)
import os,subprocess,statistics,sys,json
sys.path.insert(0,'/work/main/tools')
from interposer_runs import level_threshold
force="exscan:0-max:chain(segment=512k);allgather:0-max:ring;alltoall:0-max:pairwise;bcast:0-max:binomial"
P=sys.argv[1]; N=int(sys.argv[2])
res={'16384':[], '32768':[], 'lib':[]}
for i in range(N):
  for th in (list(res) if i%2==0 else list(res)[::-1]):
    env=dict(os.environ); cmd=['mpirun','--oversubscribe','--allow-run-as-root','-np','2']
    if th!='lib':
      env.update(LD_PRELOAD='/work/main/build/lib/libcct_mpi.so',CCT_PROFILE=P,CCT_FORCE=force,CCT_SHM_CMA_THRESHOLD=th)
      for v in ('LD_PRELOAD','CCT_PROFILE','CCT_FORCE','CCT_SHM_CMA_THRESHOLD'): cmd+=['-x',v]
    cmd+=['/work/main/build/bin/osu_style_bench','65536']
    out=subprocess.run(cmd,env=env,capture_output=True,text=True,check=True).stdout
    d={}
    for l in out.splitlines():
      f=l.split()
      if len(f)==7 and f[0] in ('exscan','allgather','alltoall','bcast') and int(f[1])>=4096: d[f[0]+' '+f[1]]=(float(f[2]),float(f[6]))
    res[th].append(d)
json.dump(res,open(sys.argv[3],'w'))
thr=level_threshold(p for k in res for r in res[k] for _,p in r.values())
print('level split at %.3f us'%thr)
for pt in res['lib'][0]:
  line=pt.ljust(16)
  for lvl in ('fast','slow'):
    for k in res:
      v=[r[pt][0] for r in res[k] if (r[pt][1]>thr)==(lvl=='slow')]
      line+=f" {lvl[0]}{k[:2]}:{statistics.median(v):6.2f}({len(v)})" if v else f" {lvl[0]}{k[:2]}:   -  "
  print(line)
