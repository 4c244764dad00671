#!/usr/bin/env bash
# ccautotune over the RapidIO simulator: a quick run on a 2-board chain at
# np 4 and 8 writes a profile keyed by the fabric's fingerprint (not this
# machine's) whose rules are for rapidio_sim, picks a switch-assisted
# algorithm where it wins (bcast), and loads back; the same fabric gives
# the same fingerprint and the same figures a second time (virtual time is
# deterministic); a bad fabric and mixing transports are refused with 2.
# usage: ccautotune_rapidio_sim.sh <ccautotune>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
run() {
  "$tuner" --fabric chain:2 --np 4,8 --collectives barrier,bcast,gather,reduce \
    --max-bytes 16k --quick --out "$1"
}

run "$dir/a" >"$dir/a.log" 2>&1 || fail "run exited $?" "$dir/a.log"
fp=$(sed -n 's/.*fabric chain:2, fingerprint \([0-9a-f]*\);.*/\1/p' "$dir/a.log")
[ ${#fp} -eq 16 ] || fail "no fabric fingerprint in the output" "$dir/a.log"
yaml=$dir/a/$fp.yaml
[ -f "$yaml" ] || fail "no profile $yaml" "$dir/a.log"
grep -q "^  summary: rapidio_sim fabric chain:2$" "$yaml" || fail "no fabric summary" "$yaml"
grep -q "rapidio_sim:" "$yaml" || fail "no rapidio_sim rules" "$yaml"
grep -q "switch_bcast\|counter_barrier\|switch_gather\|switch_reduce" "$yaml" ||
  fail "no switch-assisted algorithm won anywhere" "$yaml"

run "$dir/b" >"$dir/b.log" 2>&1 || fail "second run exited $?" "$dir/b.log"
cut -d, -f1-10 "$dir/a/$fp.csv" >"$dir/a.rows"
cut -d, -f1-10 "$dir/b/$fp.csv" >"$dir/b.rows"
cmp -s "$dir/a.rows" "$dir/b.rows" || fail "two runs measured different figures" \
  <(diff "$dir/a.rows" "$dir/b.rows")

status=0
"$tuner" --fabric ring:0 --out "$dir/c" >"$dir/c.log" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "a bad fabric exited $status, want 2" "$dir/c.log"
grep -q "fabric" "$dir/c.log" || fail "no message naming the fabric" "$dir/c.log"
status=0
"$tuner" --transports shm,rapidio_sim --out "$dir/d" >"$dir/d.log" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "shm + rapidio_sim exited $status, want 2" "$dir/d.log"
echo "PASS: profile $fp with switch-assisted rules, deterministic, bad input refused"
