#!/usr/bin/env bash
# The outside check (tuner/outside_check.hpp): a tune under --launcher
# mpirun ends by timing its profile with osu_style_bench alone and under
# the interposer, keeps the figures beside the results and says what it
# found in the profile, which stays valid; the points of every collective
# are there, each with the profile's pick. A bad --outside-runs is refused.
# usage: ccautotune_outside.sh <ccautotune> <ccprofile>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
ccprofile=$2
"$tuner" --launcher mpirun --mpirun-args "-np 2 --oversubscribe" --collectives bcast,allreduce \
  --max-bytes 4k --quick --budget 0.05 --single-job --outside-runs 2 --out "$dir/t" >"$out" 2>&1 ||
  fail "exit status $?"
grep -q "^ccautotune: outside check, run 2 of 2 a side$" "$out" || fail "no second run" "$out"
# 2 runs a side, and up to 2 more where the machine's latency moved
# between two levels and a side has fewer than 2 runs at one of them.
runs=$(sed -nE 's/^ccautotune: outside check: np 2, osu_style_bench 1 B - 4k, ([0-9]+) runs a side alternated: .*/\1/p' "$out")
[ -n "$runs" ] && [ "$runs" -ge 2 ] && [ "$runs" -le 4 ] || fail "no summary of the outside check" "$out"
[ "$runs" -eq 2 ] || grep -q "^ccautotune: outside check, run $runs a side: a side has fewer than 2 runs" "$out" ||
  fail "$runs runs a side, the extra ones unexplained" "$out"
figures=$(ls "$dir"/t/*.outside)
head -1 "$figures" | grep -qx "collective,transport,nodes,np,bytes,datatype,pick,library_s,profile_s,runs" ||
  fail "the figures' header" "$figures"
for c in barrier bcast alltoallv; do
  grep -Eq "^$c,shm,1,2,[0-9]+,,\"[a-z_]+[^\"]*\",[0-9.e-]+,[0-9.e-]+,[1-4]$" "$figures" ||
    fail "no figure of $c" "$figures"
done
profile=$(ls "$dir"/t/*.yaml)
grep -Eq '^  outside: "?np 2, osu_style_bench' "$profile" || fail "no outside record in the profile" "$profile"
"$ccprofile" validate "$profile" >"$out" 2>&1 || fail "the profile is not valid"
record=$(grep -E '^  outside: ' "$profile")

# Made again from the same results without a check (--outside-runs 0):
# the check's figures still give sizes back, and the profile still says
# what that check found.
"$tuner" --launcher mpirun --mpirun-args "-np 2 --oversubscribe" --collectives bcast,allreduce \
  --max-bytes 4k --quick --budget 0.05 --single-job --outside-runs 0 --resume --out "$dir/t" \
  >"$out" 2>&1 || fail "--resume --outside-runs 0: exit status $?" "$out"
grep -q "outside check, run" "$out" && fail "--outside-runs 0 ran the check" "$out"
[ "$(grep -E '^  outside: ' "$profile")" = "$record" ] ||
  fail "the profile made again lost the outside check's record" "$profile"

status=0
"$tuner" --launcher mpirun --outside-runs -1 --out "$dir/u" >"$out" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q -- "--outside-runs: a count, 0 for no outside check" "$out" ||
  fail "--outside-runs -1: status $status" "$out"
echo "ccautotune_outside: ok"
