# The runs behind stop7_*.json (issue 49, seventh and eighth stops): osu_style_bench on the library
# alone and under the interposer with each side's profile and environment, every side in turn run by
# run (tools/interposer_runs.py does the same for profiles; a side here also carries environment
# variables, such as CCT_SHM_CMA_THRESHOLD, which that tool has no way to give one side). A side
# whose profile is "-" is the library alone again: an A/A control of the method. A side's
# LD_PRELOAD=... preloads another build's interposer (an A/B of two builds in one series).
# The order rotates, side k first in run k (as tools/interposer_runs.py); with --reversed, the
# sides in their order and then backwards every other run, which made the seventh stop's
# stop7_*.json (with three sides or more the middle ones then always run between two others; two
# identical sides, one always in the middle, came out alike: stop8_order_*, docs/benchmarks.md).
# usage: stop7_sides.py [--reversed] RUNS OUT.json NAME=PROFILE|-[,VAR=VALUE...] ...
#        (from the repository root)
import json, os, subprocess, sys
args = sys.argv[1:]
reversed_order = args[0] == '--reversed'
if reversed_order:
    args = args[1:]
runs, out = int(args[0]), args[1]
sides = {'lib': None}
for arg in args[2:]:
    name, spec = arg.split('=', 1)
    profile, *env = spec.split(',')
    sides[name] = (profile, dict(e.split('=', 1) for e in env))
preload = os.path.abspath('build/lib/libcct_mpi.so')
res = {k: [] for k in sides}
names = list(sides)
for i in range(runs):
    if reversed_order:
        order = names if i % 2 == 0 else names[::-1]
    else:
        order = names[i % len(names):] + names[:i % len(names)]
    for k in order:
        env = dict(os.environ)
        env.pop('LD_PRELOAD', None)
        cmd = ['mpirun', '--oversubscribe', '--allow-run-as-root', '-np', '2']
        if sides[k]:
            profile, extra = sides[k]
            exported = list(extra)
            if profile != '-':
                env.update(LD_PRELOAD=preload, CCT_PROFILE=profile)
                exported += ['LD_PRELOAD', 'CCT_PROFILE']
            env.update(extra)  # LD_PRELOAD=another build's interposer among them
            for var in exported:
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
