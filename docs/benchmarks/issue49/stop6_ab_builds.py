# The run behind stop6_kept_counts_interleaved.txt (issue 49, sixth stop): osu_style_bench on
# the library alone and under two builds of the interposer (the one before the change copied to
# /tmp/oldbuild: git stash; cmake --build build; cp -a build/lib build/bin /tmp/oldbuild; git stash pop),
# the three alternated run by run; each preload loads the libcct beside it (LD_LIBRARY_PATH, searched
# before the RUNPATH; added for the registry refactor's run: the first run swapped libcct_mpi.so
# alone, which was all that change touched). usage: stop6_ab_builds.py RUNS PROFILE OUT.json
import os,subprocess,sys,json
N=int(sys.argv[1]); prof=sys.argv[2]
cfgs={'lib':None,'old':'/tmp/oldbuild/lib/libcct_mpi.so','new':'/work/main/build/lib/libcct_mpi.so'}
res={k:[] for k in cfgs}
for i in range(N):
  order=list(cfgs) if i%2==0 else list(cfgs)[::-1]
  for k in order:
    env=dict(os.environ); env.pop('LD_PRELOAD',None)
    cmd=['mpirun','--oversubscribe','--allow-run-as-root','-np','2']
    if cfgs[k]:
      env.update(LD_PRELOAD=cfgs[k],CCT_PROFILE=prof,LD_LIBRARY_PATH=os.path.dirname(cfgs[k])); cmd+=['-x','LD_PRELOAD','-x','CCT_PROFILE','-x','LD_LIBRARY_PATH']
    cmd+=['/work/main/build/bin/osu_style_bench','1048576']
    out=subprocess.run(cmd,env=env,capture_output=True,text=True,check=True).stdout
    d={}
    for l in out.splitlines():
      f=l.split()
      if l.startswith('#') or len(f)!=7: continue
      d[f[0]+' '+f[1]]=(float(f[2]),float(f[6]))
    res[k].append(d)
json.dump(res,open(sys.argv[3],'w'))
