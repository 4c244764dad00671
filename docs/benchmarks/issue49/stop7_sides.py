# The runs behind stop7_threshold_*.json (issue 49, seventh stop): osu_style_bench on the library
# alone and under the interposer with each side's profile and environment, every side in turn run by
# run (tools/interposer_runs.py does the same for profiles; a side here also carries environment
# variables, such as CCT_SHM_CMA_THRESHOLD, which that tool has no way to give one side).
# usage: stop7_sides.py RUNS OUT.json NAME=PROFILE[,VAR=VALUE...] ...   (from the repository root)
import json, os, subprocess, sys
runs, out = int(sys.argv[1]), sys.argv[2]
sides = {'lib': None}
for arg in sys.argv[3:]:
    name, spec = arg.split('=', 1)
    profile, *env = spec.split(',')
    sides[name] = (profile, dict(e.split('=', 1) for e in env))
preload = os.path.abspath('build/lib/libcct_mpi.so')
res = {k: [] for k in sides}
for i in range(runs):
    order = list(sides) if i % 2 == 0 else list(sides)[::-1]
    for k in order:
        env = dict(os.environ)
        env.pop('LD_PRELOAD', None)
        cmd = ['mpirun', '--oversubscribe', '--allow-run-as-root', '-np', '2']
        if sides[k]:
            profile, extra = sides[k]
            env.update(LD_PRELOAD=preload, CCT_PROFILE=profile, **extra)
            for var in ['LD_PRELOAD', 'CCT_PROFILE', *extra]:
                cmd += ['-x', var]
        cmd += ['build/bin/osu_style_bench', '1048576']
        text = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        points = {}
        for line in text.splitlines():
            f = line.split()
            if not line.startswith('#') and len(f) == 7:
                points[f[0] + ' ' + f[1]] = (float(f[2]), float(f[6]))
        res[k].append(points)
json.dump(res, open(out, 'w'))
