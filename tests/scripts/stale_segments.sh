#!/usr/bin/env bash
# A shared-memory segment whose creator died before unlinking it (a rank
# killed between creating and unlinking) is removed by the next program
# that opens the shm transport, once it is a minute old; a young one, and
# one whose creator lives, are left alone.
# usage: stale_segments.sh <bin dir>
set -uo pipefail
bin=$1
sleep 0 &
dead=$!
wait "$dead"
stale=/dev/shm/cct-$dead-0-shm-$dead-0-r3
young=/dev/shm/cct-$dead-1-shm-$dead-1
alive=/dev/shm/cct-$$-0-shm-$$-0
trap 'rm -f "$stale" "$young" "$alive" "$log"' EXIT
log=$(mktemp)
fail() { echo "FAIL: $1"; cat "$log"; exit 1; }
for f in "$stale" "$young" "$alive"; do head -c 4096 /dev/zero >"$f"; done
touch -d '2 minutes ago' "$stale" "$alive"
kill -0 "$dead" 2>/dev/null && fail "pid $dead was reused before the test could use it"
"$bin/cclaunch" -n 2 "$bin/cct_example_app" >"$log" 2>&1 || fail "the example app exited $?"
[ ! -e "$stale" ] || fail "the segment of dead pid $dead, 2 minutes old, is still there"
[ -e "$young" ] || fail "a segment younger than a minute was removed"
[ -e "$alive" ] || fail "the segment of a live process ($$) was removed"
echo "PASS: a dead creator's old segment removed; a young one and a live creator's kept"
