#!/usr/bin/env bash
# Under the interposer (libcct_mpi.so) on 2 ranks, a collective no rule
# covers goes to the MPI library's own call, as the program made it
# (Runtime::Options::library_without_rule): with a profile that has rules
# for bcast only, and with no profile found for this machine, allreduce
# and alltoallv (osu_style_bench's loop) are handed over untouched; with
# CCT_PROFILE=none they run the built-in defaults (the baseline a profile
# is compared with). Counted by CCT_STATS, not timed.
# usage: mpi_no_rule_library.sh <osu_style_bench> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench=$1
interposer=$2
calls=40
profile=$dir/bcast_only.yaml
{
  profile_header 3
  printf '%s\n' '  bcast:' '    shm:' '      - np: [1, max]' '        sizes:' \
    '          - range: [0, max]' '            algorithm: binomial'
} >"$profile"
mkdir -p "$dir/no_profiles"
run() {  # run <collective> [mpirun -x options...]
  local c=$1
  shift
  mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
    -x CCT_LOG=info "$@" "$bench" loop "$c" 8 "$calls" >"$out" 2>"$err" ||
    fail "$c: exit status $?" "$err"
}
untouched() {  # untouched <collective> <what ran>
  grep -qxF "  $1: $calls call(s): the profile keeps the MPI library's own call for every size, or has no rule for it: handed over untouched" "$err" ||
    fail "$1 ($2): not handed to the library untouched" "$err"
}
for c in allreduce alltoallv; do
  run "$c" -x CCT_PROFILE="$profile"
  untouched "$c" "a profile without rules for it"
  # No profile found: none in CCT_PROFILE_PATH nor in HOME's; the build's
  # own profile directory may hold this machine's (tools/tune.sh without
  # --out writes there), and then this case says so and is not run.
  run "$c" -x CCT_PROFILE_PATH="$dir/no_profiles" -x CCT_PROFILE= -x HOME="$dir"
  if grep -q "no profile for this machine" "$err"; then
    grep -q "using the MPI library's own collectives in an MPI program" "$err" ||
      fail "$c: no profile found, and the log does not say the library's calls are used" "$err"
    untouched "$c" "no profile found"
  else
    echo "note: $c with no profile found not run: the build's profile directory has one"
  fi
  run "$c" -x CCT_PROFILE=none
  grep -q "^cct: no collective call was passed to the MPI library (rank 0)$" "$err" ||
    fail "$c with CCT_PROFILE=none: calls passed to the library, not the built-in default" "$err"
done
# The collective the profile has a rule for runs it.
run bcast -x CCT_PROFILE="$profile"
grep -q "^world .* bcast  *binomial .* $calls " "$err" || fail "bcast: not run by its rule" "$err"
echo "PASS: collectives without a rule go to the MPI library untouched (a profile without them, no" \
  "profile found); CCT_PROFILE=none runs the built-in defaults; a rule still runs its pick"
