#!/usr/bin/env bash
# ccautotune end to end on 2 ranks: a small quick run writes a results file
# with one row per point; after a simulated crash (the last row cut in half)
# --resume measures only the missing point, and no point appears twice; an
# existing file without --resume, or a bad argument, is refused with status 2.
# usage: ccautotune_resume.sh <ccautotune>
set -euo pipefail
tuner=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
csv=$dir/results.csv
run() {
  "$tuner" --np 2 --collectives barrier,bcast --max-bytes 4k --quick --budget 0.05 \
    --out "$csv" "$@"
}
fail() { echo "FAIL: $1"; [ $# -lt 2 ] || cat "$2"; exit 1; }

run >"$dir/first.log" || fail "first run exited $?" "$dir/first.log"
header='collective,transport,np,bytes,algorithm,params,median_s,min_s,max_s,reps'
[ "$(head -1 "$csv")" = "$header" ] || fail "header is '$(head -1 "$csv")'"
rows=$(($(wc -l <"$csv") - 1))
[ "$rows" -ge 10 ] || fail "only $rows rows" "$csv"
grep -q '^bcast,shm,2,1,knomial,radix=4,' "$csv" || fail "no knomial row" "$csv"

# A crash in the middle of the last row: half of it stays, without newline.
last=$(tail -1 "$csv")
head -n -1 "$csv" >"$dir/cut" && printf '%s' "${last:0:20}" >>"$dir/cut" && mv "$dir/cut" "$csv"
run --resume >"$dir/second.log" || fail "resume exited $?" "$dir/second.log"
grep -q '^\[1/1\] ' "$dir/second.log" || fail "resume did not measure 1 point" "$dir/second.log"
[ $(($(wc -l <"$csv") - 1)) -eq "$rows" ] || fail "$rows rows expected after resume" "$csv"
dups=$(cut -d, -f1-6 "$csv" | sort | uniq -d)
[ -z "$dups" ] || fail "measured twice: $dups"

status=0
run >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "rerun without --resume exited $status, want 2"
status=0
"$tuner" --bogus >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--bogus exited $status, want 2"
echo "PASS: $rows points, resumed after a cut row without repeating any"
