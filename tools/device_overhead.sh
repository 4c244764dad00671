#!/usr/bin/env bash
# What a host-buffer MPI program pays under the interposer where the
# runtime has a device transport (docs/benchmarks.md, "Device buffers"):
# tools/osu_style_bench (bcast and allreduce up to 1 KiB, 2 ranks) under
# the interposer as it is, with the tests' host_device transport loaded
# (every call then asks where its buffers are), and with device rules for
# allreduce besides (every allreduce then agrees on memory kinds), the
# three alternated REPS times (default 3); prints the ratios to the first.
# usage: tools/device_overhead.sh [REPS]   (after a build in ./build)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
b=$PWD/build
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bench() {  # <label> [mpirun options...]
  local label=$1
  shift
  mpirun --allow-run-as-root -np 2 -x LD_PRELOAD="$b/lib/libcct_mpi.so" -x CCT_PROFILE=none "$@" \
    "$b/bin/osu_style_bench" 1024 2>/dev/null |
    awk -v l="$label" '$1=="allreduce"||$1=="bcast"{print l, $1, $2, $3}'
}
device=$b/tests/plugins/libcct_test_host_device.so
for ((r = 0; r < reps; ++r)); do
  bench as_it_is
  bench device_open -x CCT_PLUGIN_PATH="$device"
  bench device_rules -x CCT_PLUGIN_PATH="$device" -x CCT_FORCE="allreduce:0-max:device_ring"
done >"$dir/runs"
python3 - "$dir/runs" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, coll, size, us = line.split()
    runs[(label, coll, size)].append(float(us))
for label in ("device_open", "device_rules"):
    for coll in ("bcast", "allreduce"):
        ratios = [t / b for (l, c, s), ts in runs.items() if l == label and c == coll
                  for t, b in zip(ts, runs[("as_it_is", c, s)])]
        print(f"{label:13s} {coll:9s} per call, over as it is: median {statistics.median(ratios):.2f}, "
              f"range {min(ratios):.2f}-{max(ratios):.2f} ({len(ratios)} size x run pairs)")
PY
