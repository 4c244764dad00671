#!/usr/bin/env bash
# A vector collective kept on the library for every size at root 0, whose
# profile has rules of its own for the other roots that choose by size
# (a tuned profile of this machine has them for gatherv and scatterv):
# under the interposer (libcct_mpi.so) on 2 ranks, osu_style_bench's loop
# (one call at root 0, repeated) is handed to the library untouched, and no
# call agrees on its size first. The same calls with rules by size for
# every root (CCT_FORCE) do agree: that is what the count would show if
# the other roots' rules brought the agreement back. Counted by CCT_STATS
# (its "(size agreed first)" row: Runtime::agreements), not timed.
# usage: mpi_kept_by_root.sh <osu_style_bench> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench=$1
interposer=$2
calls=50
profile=$dir/by_root.yaml
{
  profile_header 2
  for c in gatherv scatterv; do
    printf '%s\n' "  $c:" '    shm:' '      - np: [1, max]' '        sizes:' \
      '          - range: [0, max]' '            algorithm: mpi' '      - np: [1, max]' \
      '        roots: nonzero' '        sizes:' '          - range: [0, 256]' \
      '            algorithm: mpi' '          - range: [256, max]' '            algorithm: linear'
  done
} >"$profile"
run() {  # run <collective> [mpirun -x options...]
  local c=$1
  shift
  mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
    -x CCT_PROFILE="$profile" "$@" "$bench" loop "$c" 8 "$calls" >"$out" 2>"$err" ||
    fail "$c: exit status $?" "$err"
}
for c in gatherv scatterv; do
  run "$c"
  grep -qxF "  $c: $calls call(s): the profile keeps the MPI library's own call for every size, or has no rule for it: handed over untouched" "$err" ||
    fail "$c at root 0: not handed over untouched, though root 0's rule is the library's for every size" "$err"
  if grep -q "(size agreed first)" "$err"; then
    fail "$c at root 0: calls agreed on their size first" "$err"
  fi
  run "$c" -x CCT_FORCE="$c:0-256:mpi;$c:256-max:linear"
  grep -q "^world .* $c .*(size agreed first) *$calls " "$err" ||
    fail "$c with rules by size at every root: not $calls calls that agreed on their size" "$err"
done
echo "PASS: gatherv and scatterv at root 0 kept on the library for every size are handed over" \
  "untouched and agree on nothing, though the other roots' rules choose by size"
