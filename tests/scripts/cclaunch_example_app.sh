#!/usr/bin/env bash
# The runtime from a user's side: cclaunch starts the C example app on 3
# ranks, results are correct, CCT_STATS=1 prints the algorithms that ran; a
# program's arguments reach it untouched; a failing program is reported by
# rank and exit status.
# usage: cclaunch_example_app.sh <bin dir>
set -uo pipefail
bin=$1
out=$(CCT_STATS=1 "$bin/cclaunch" -n 3 "$bin/cct_example_app" 2>&1)
[ $? -eq 0 ] || { echo "FAIL: example app on 3 ranks: $out"; exit 1; }
grep -q "3 ranks, all results correct" <<<"$out" || { echo "FAIL: $out"; exit 1; }
# Whichever algorithms serve them (a tuned profile may be present), the
# stats rows of allreduce add up to the app's 6 calls.
calls=$(awk '$1 == "allreduce" { n += $3 } END { print n + 0 }' <<<"$out")
[ "$calls" -eq 6 ] || { echo "FAIL: stats count $calls allreduce calls, want 6: $out"; exit 1; }
out=$("$bin/cclaunch" -n 2 false 2>&1)
[ $? -eq 1 ] || { echo "FAIL: cclaunch of a failing program did not exit 1"; exit 1; }
grep -q "exited with status 1" <<<"$out" || { echo "FAIL: unclear failure: $out"; exit 1; }
# What follows the program is the program's, as given, options and all.
out=$("$bin/cclaunch" -n 1 --timeout=60 printf '%s|' -n '[a,b]' '' -- --timeout 2>&1)
[ "$out" = "-n|[a,b]||--|--timeout|" ] || { echo "FAIL: arguments changed on the way: $out"; exit 1; }
out=$("$bin/cclaunch" -n 0 true 2>&1)
[ $? -eq 2 ] || { echo "FAIL: -n 0 accepted"; exit 1; }
echo "PASS: example app correct on 3 ranks, stats printed, failures named"
