#!/usr/bin/env bash
# The cost model where truth is exact, on a small case: on the simulated
# RapidIO fabric tree:4 (16 DSPs, 4 per board), tune at np 4 and 8 and
# predict 16; then measure 16 and compare each measured point with the
# profile's choice there (ccprofile check). The predicted rules must pick
# within 5% of the fastest at 85% of the points or more (78 of 87 when this
# test was written), with a mean of at most 1.05x, and at no fewer points
# than the np-8 rules stretched to 16, which is what a profile did before
# it had a model. The predicted bucket says so in the profile, and the run
# prints the model's own check.
# usage: cost_model_simulator.sh <ccautotune> <ccprofile>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
ccprofile=$2
tune() {  # out, then ccautotune's own arguments
  local out=$1
  shift
  "$tuner" --fabric tree:4 --collectives bcast,reduce,allreduce,allgather,alltoall \
    --max-bytes 16k --out "$dir/$out" "$@" >"$dir/$out.log" 2>&1 ||
    fail "ccautotune $* exited $?" "$dir/$out.log"
}
tune predicted --np 4,8 --predict-np 16
tune measured --np 16
tune stretched --np 4,8 --predict-np 8
fp=$(sed -n 's/.*fabric tree:4, fingerprint \([0-9a-f]*\);.*/\1/p' "$dir/predicted.log")
[ ${#fp} -eq 16 ] || fail "no fabric fingerprint in the output" "$dir/predicted.log"
grep -q "predicted: {np: 16, from_np: 8, error: " "$dir/predicted/$fp.yaml" ||
  fail "no bucket marked predicted for np 16 from 8" "$dir/predicted/$fp.yaml"
grep -q "cost model (rapidio_sim) checked on each measured size" "$dir/predicted.log" ||
  fail "the run did not print the model's check" "$dir/predicted.log"

# "measured points at np=16: 87 sizes, the profile's choice within 5% of
# the fastest at 78; mean 1.02x, ..." -> "87 78 1.02"
score() {
  "$ccprofile" check "$dir/$1/$fp.yaml" "$dir/measured/$fp.csv" --np 16 >"$dir/$1.check" ||
    fail "ccprofile check exited $?" "$dir/$1.check"
  sed -n 's/.*: \([0-9]*\) sizes, .* at \([0-9]*\); mean \([0-9.]*\)x.*/\1 \2 \3/p' "$dir/$1.check"
}
read -r sizes within mean <<<"$(score predicted)"
read -r _ stretched_within _ <<<"$(score stretched)"
[ -n "$sizes" ] || fail "no figures from ccprofile check" "$dir/predicted.check"
[ $((within * 100)) -ge $((sizes * 85)) ] ||
  fail "predicted picks within 5% at $within of $sizes points, want 85% or more" \
    "$dir/predicted.check"
awk -v m="$mean" 'BEGIN { exit !(m <= 1.05) }' ||
  fail "predicted picks cost ${mean}x the fastest on average, want 1.05x or less" \
    "$dir/predicted.check"
[ "$within" -ge "$stretched_within" ] ||
  fail "predicted rules right at $within points, the stretched np-8 ones at $stretched_within" \
    "$dir/stretched.check"
echo "PASS: np 16 predicted from 4 and 8: within 5% at $within of $sizes points (stretched" \
  "np-8 rules: $stretched_within), mean ${mean}x"
