#!/usr/bin/env bash
# ccbench --check on a profile just tuned under mpirun (2 ranks, bcast and
# allreduce up to 4 KiB, quick): every size the tuner fully measured with a
# usable runner-up gets a row naming the profile's pick and the runner-up,
# the summary counts them; the MPI library's own call (`mpi`) was measured
# as a candidate. A benchmark's verdicts are not asserted (they are
# timings); that it checks what it says it checks is. --check with another
# mode is refused with status 2.
# usage: ccbench_check.sh <ccautotune> <ccbench>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
ccbench=$2
mpirun --allow-run-as-root --oversubscribe -np 2 "$tuner" --collectives bcast,allreduce \
  --max-bytes 4k --quick --budget 0.02 --out "$dir" >"$dir/tune.log" 2>&1 ||
  fail "tuning exited $?" "$dir/tune.log"
csv=$(ls "$dir"/*.csv)
yaml=$(ls "$dir"/*.yaml)
grep -q ',mpi,' "$csv" || fail "the library was not measured" "$csv"
mpirun --allow-run-as-root --oversubscribe -np 2 -x CCT_PROFILE="$yaml" "$ccbench" --check "$csv" \
  >"$dir/check.log" 2>&1 || fail "ccbench --check exited $?" "$dir/check.log"
rows=$(grep -cE '^(bcast|allreduce) +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  [a-z_]+[^ ]* \| [a-z_]+' \
  "$dir/check.log" || true)
# A size with full measurements of two candidates always has a runner-up
# (one that is not the pick); one with a single candidate has one when the
# profile kept another pick there.
counts() {  # <least candidates>
  awk -F, -v least="$1" '$12 == "final" || $12 == "crossover" {n[$1 "," $5]++} END {
    for (k in n) if (n[k] >= least) c++; print c + 0}' "$csv"
}
[ "$rows" -gt 0 ] || fail "no rows" "$dir/check.log"
[ "$rows" -ge "$(counts 2)" ] && [ "$rows" -le "$(counts 1)" ] ||
  fail "$rows rows: not between $(counts 2) and $(counts 1) sizes" "$dir/check.log"
grep -qE "^ccbench --check \(shm\): the runner-up was more than 5% faster at [0-9]+ of $rows sizes$" \
  "$dir/check.log" || fail "no summary line counting $rows sizes" "$dir/check.log"
status=0
mpirun --allow-run-as-root --oversubscribe -np 1 "$ccbench" --check "$csv" --compare \
  >"$dir/both.log" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--check with --compare: status $status, not 2" "$dir/both.log"
grep -q "modes of their own" "$dir/both.log" || fail "no reason for the refusal" "$dir/both.log"
echo "PASS: ccbench --check: $rows sizes checked against their runner-up"
