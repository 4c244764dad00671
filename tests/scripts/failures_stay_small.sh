#!/usr/bin/env bash
# Mistakes in the environment cost only themselves (issue 14): a bad
# CCT_FORCE rule drops that rule, an unknown CCT_LOG value leaves the log
# off, a file that is no profile and a profile rule naming an algorithm this
# build lacks fall back to the built-in defaults where they must; each says
# so once per process, in one bounded line, and the program runs and is
# correct. The same under the MPI interposer, where a runtime that failed to
# open would send every call to the library.
# usage: failures_stay_small.sh <bin dir> <interposer_check> <libcct_mpi.so> <shipped profile>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
bin=$1 program=$2 interposer=$3 shipped=$4
# Its own fail: only the file named is shown, never $out and $err unasked.
fail() {
  echo "FAIL: $1"
  [ -n "${2:-}" ] && cat "$2"
  exit 1
}
# Runs the C example app on 2 ranks with the given environment; its stderr
# lands in $dir/err.
app() {
  env "$@" CCT_STATS=1 "$bin/cclaunch" -n 2 "$bin/cct_example_app" >"$dir/out" 2>"$dir/err" ||
    fail "example app with $* exited $?" "$dir/err"
  grep -q "2 ranks, all results correct" "$dir/out" || fail "example app with $*" "$dir/out"
}
once() {  # $1: text that must be on exactly one line of $dir/err
  [ "$(grep -cF -- "$1" "$dir/err")" -eq 1 ] || fail "want one line with '$1'" "$dir/err"
}

# One bad CCT_FORCE rule: skipped alone, the next rule still applies.
app CCT_FORCE="bcast:0-max:nope;allreduce:0-max:ring"
once "CCT_FORCE rule 1 'bcast:0-max:nope' at character 13: unknown bcast algorithm 'nope'"
once "that rule is ignored, the other CCT_FORCE rules apply"
grep -Eq '^allreduce +ring ' "$dir/err" || fail "the good CCT_FORCE rule was not applied" "$dir/err"

# CCT_LOG in capitals works; a value it does not know leaves the log off.
app CCT_LOG=INFO CCT_PROFILE="$shipped"
grep -q "^cct: rank 0: allreduce .* -> " "$dir/err" || fail "CCT_LOG=INFO logged no choice" "$dir/err"
once "cct: profile $shipped (CCT_PROFILE), tuned "
app CCT_LOG=loud
once "CCT_LOG='loud': expected off, info or debug; the log stays off"

# A results CSV given as the profile: named as such, in one short line.
printf 'collective,transport,nodes,np,bytes,algorithm,params,median_s\n' >"$dir/r.csv"
for i in $(seq 3000); do echo "bcast,shm,1,2,64,binomial,,1e-06"; done >>"$dir/r.csv"
app CCT_PROFILE="$dir/r.csv"
once "this is a ccautotune results file (CSV), not a profile"
[ "$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$dir/err")" -lt 400 ] ||
  fail "an error line longer than 400 characters" "$dir/err"

# A profile of another machine with one rule naming an algorithm this build
# lacks: that rule alone is left out, with its file and line; the machine
# mismatch is said once.
sed -e '0,/algorithm: ring/s//algorithm: gone/' \
  -e 's/^  fingerprint: .*/  fingerprint: 00000000deadbeef/' "$shipped" >"$dir/p.yaml"
line=$(grep -n "algorithm: gone" "$dir/p.yaml" | cut -d: -f1)
[ -n "$line" ] || fail "the test could not plant a bad rule in $shipped"
app CCT_PROFILE="$dir/p.yaml"
once "$dir/p.yaml:$line: "
grep "$dir/p.yaml:$line: " "$dir/err" | grep -q "unknown allgather algorithm 'gone'.*; rule allgather .* left out, its sizes take the built-in default$" ||
  fail "the bad rule was not named with file, line and consequence" "$dir/err"
once "was tuned on another machine (fingerprint 00000000deadbeef"

# Under the interposer: a bad CCT_FORCE rule must not turn the runtime off.
mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
  -x CCT_FORCE="bcast:0-max:nope;allreduce:0-max:ring" "$program" >"$dir/out" 2>"$dir/err" ||
  fail "interposer_check with a bad CCT_FORCE rule exited $?" "$dir/err"
grep -q "^interposer_check: 2 ranks, .* 0 failures on all ranks$" "$dir/out" ||
  fail "interposer_check with a bad CCT_FORCE rule" "$dir/out"
once "that rule is ignored, the other CCT_FORCE rules apply"
! grep -q "the runtime failed to open" "$dir/err" || fail "the runtime was turned off" "$dir/err"
grep -Eq '^world +1 +allreduce +ring ' "$dir/err" || fail "the good rule was not applied under MPI" "$dir/err"
echo "PASS: a bad rule, CCT_LOG value or profile costs only itself, said once in a short line"
