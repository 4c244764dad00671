#!/usr/bin/env bash
# A shared-memory segment whose creator died before unlinking it (a rank
# killed between creating and unlinking) is removed by the next program
# that opens the shm transport, once it is a minute old, and so is one
# whose creator is a zombie (killed, never reaped: what a rank killed under
# mpirun is until init reaps it); a young one, and one whose creator lives,
# are left alone.
# usage: stale_segments.sh <bin dir>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
bin=$1
sleep 0 &
dead=$!
wait "$dead"
# A parent that never reaps its child: the child stays a zombie.
zfile=$dir/zombie
: >"$zfile"
zombie_seg=""
(
  sleep 0 &
  echo $! >"$zfile"
  exec sleep 60
) &
# shellcheck disable=SC2034 # killed at exit
zparent=$!
stale=/dev/shm/cct-$dead-0-shm-$dead-0-r3
young=/dev/shm/cct-$dead-1-shm-$dead-1
alive=/dev/shm/cct-$$-0-shm-$$-0
# shellcheck disable=SC2016 # expanded at exit
at_exit 'kill "$zparent"; rm -f "$stale" "$young" "$alive" "$zombie_seg"'
for _ in $(seq 50); do
  zombie=$(cat "$zfile")
  [ -n "$zombie" ] && [ "$(awk '{print $3}' "/proc/$zombie/stat" 2>/dev/null)" = Z ] && break
  sleep 0.1
done
[ "$(awk '{print $3}' "/proc/$zombie/stat" 2>/dev/null)" = Z ] || fail "no zombie to test with"
zombie_seg=/dev/shm/cct-$zombie-0-shm-$zombie-0
for f in "$stale" "$young" "$alive" "$zombie_seg"; do head -c 4096 /dev/zero >"$f"; done
touch -d '2 minutes ago' "$stale" "$alive" "$zombie_seg"
kill -0 "$dead" 2>/dev/null && fail "pid $dead was reused before the test could use it"
"$bin/cclaunch" -n 2 "$bin/cct_example_app" >"$out" 2>&1 || fail "the example app exited $?"
[ ! -e "$stale" ] || fail "the segment of dead pid $dead, 2 minutes old, is still there"
[ ! -e "$zombie_seg" ] || fail "the segment of zombie pid $zombie, 2 minutes old, is still there"
[ -e "$young" ] || fail "a segment younger than a minute was removed"
[ -e "$alive" ] || fail "the segment of a live process ($$) was removed"
echo "PASS: a dead or zombie creator's old segment removed; a young one and a live creator's kept"
