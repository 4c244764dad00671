#!/usr/bin/env bash
# No leaked segments, ever (issue 15): a rank killed (SIGKILL) at any step
# of communicator creation leaves nothing in /dev/shm that lives on. The
# shim libcct_test_kill_at.so (tests/support/kill_at.c) kills rank 0 or
# rank 1 right before or right after the n-th shm_open, ftruncate, mmap or
# shm_unlink of a cct segment. After each such run the launcher must have
# failed, and every segment the run's processes created must be gone at
# once, or be named with a creator pid that is dead and be removed by the
# next normal start once it counts as old (made so here with touch, as in
# stale_segments.sh). A segment left with a live creator, or not removed,
# fails the test, and is printed.
#
# Stages: a dry run with the shim logging (CCT_KILL_LOG, no CCT_KILL_AT)
# lists, in order, every such call each rank makes; each (rank, call, n,
# before/after) is a stage.
#   - cclaunch -n 2 cct_example_app, its barrier forced to central_counter:
#     every stage of the run, which makes one communicator (its segment:
#     create, size, map, unlink on rank 0; open, map on rank 1) and one
#     shared region ("-r1", the same steps through regions.cpp).
#   - mpirun -np 2 cct_interposer_check under the interposer: the stages of
#     the first communicator's creation only (MPI_COMM_WORLD's segment, the
#     first rank 0 creates). The program makes some 50 more communicators
#     through the same transport code, covered stage by stage under
#     cclaunch; what mpirun changes is the launcher (no job-key cleanup,
#     Open MPI killing the surviving rank), which one creation shows as
#     well as all, at some 3 s per stage.
# usage: comm_creation_kills.sh <bin dir> <interposer_check> <libcct_mpi.so>
#          <libcct_test_kill_at.so>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
bin=$1
program=$2
interposer=$3
shim=$4
work=$dir/work
mkdir "$work"
limit=30 # seconds a run may take; a killed run takes about 2
# The example app's one barrier on central_counter, an algorithm that makes
# a shared region (transports/shm/regions.cpp), so that the region's
# create/map/unlink steps are stages too.
region_barrier="barrier:0-max:central_counter;"
# Whatever the runs' processes created, removed even when the test fails:
# every run's log (kept in all.log) names their pids.
cleanup() {
  for pid in $(awk '{print $2}' "$work"/*.log 2>/dev/null | sort -u); do
    rm -f /dev/shm/cct-*-shm-"$pid"-*
  done
}
at_exit cleanup
failures=0
# Its own fail: counts the failure and goes on.
fail() {
  echo "FAIL: $1"
  failures=$((failures + 1))
}

# The segments in /dev/shm whose creator is a process that logged in $1.
segments_of() {
  local pid f
  for pid in $(awk '{print $2}' "$1" | sort -u); do
    for f in /dev/shm/cct-*-shm-"$pid"-*; do [ -e "$f" ] && echo "${f#/dev/shm/}"; done
  done
}

# Runs the program 2 ranks under launcher $1 with the shim logging to $2;
# more arguments are NAME=VALUE settings for the ranks.
run() {
  local launcher=$1 log=$2
  shift 2
  if [ "$launcher" = cclaunch ]; then
    env CCT_KILL_LOG="$log" CCT_FORCE="$region_barrier" "$@" LD_PRELOAD="$shim" \
      timeout -k 5 "$limit" "$bin/cclaunch" -n 2 "$bin/cct_example_app" </dev/null
  else
    local xs=(-x CCT_KILL_LOG="$log")
    for setting in "$@"; do xs+=(-x "$setting"); done
    timeout -k 5 "$limit" mpirun --allow-run-as-root --oversubscribe -np 2 \
      -x LD_PRELOAD="$interposer:$shim" "${xs[@]}" "$program" </dev/null
  fi
}

# "rank call n" for every call in a dry run's log $1; with $2 = first, only
# the calls on the first segment rank 0 created (not its regions).
stages_of() {
  awk -v only="$2" '
    $3 == "KILL" { next }
    { seg = $5; sub(/^\/dev\/shm/, "", seg) }
    first == "" && $1 == 0 && $3 == "shm_open" { first = seg }
    only != "first" || seg == first { print $1, $3, $4 }' "$1" | sort -s -k1,1n
}

# The state letter of process $1 (R, S, Z...), empty once it is gone.
state_of() {
  awk '{print $3}' "/proc/$1/stat" 2>/dev/null
}

# Waits up to 10 s for process $1 to be dead, as the sweep sees it: gone,
# or a zombie (mpirun can return while Open MPI still tears down the other
# rank, which it reparents to init, a zombie until init reaps it).
gone() {
  local tries=0
  while kill -0 "$1" 2>/dev/null && [ "$(state_of "$1")" != Z ]; do
    [ $((tries += 1)) -le 100 ] || return 1
    sleep 0.1
  done
}

# After a killed run (log $1): "clean" when the run's segments are gone;
# "removed-by-next-start" when each left one has a dead creator and a
# normal start removes it; otherwise prints why and returns 1.
check_leftovers() {
  local log=$1 left seg pid
  left=$(segments_of "$log")
  [ -z "$left" ] && { echo clean; return 0; }
  for seg in $left; do
    pid=$(sed -E 's/^cct-.*-shm-([0-9]+)-.*/\1/' <<<"$seg")
    gone "$pid" || {
      echo "left $seg, its creator $pid still alive (state $(state_of "$pid")) 10 s after the run"
      return 1
    }
    touch -d '2 minutes ago' "/dev/shm/$seg"
  done
  run cclaunch "$work/next.log" >/dev/null 2>&1 || {
    echo "left $left; the next normal start failed"
    return 1
  }
  left=$(for seg in $left; do [ -e "/dev/shm/$seg" ] && echo "$seg"; done)
  [ -z "$left" ] || { echo "left $left, not removed by the next start"; return 1; }
  echo removed-by-next-start
}

# One stage: launcher $1 kills rank $2 at $3 (call:n:when).
stage() {
  local launcher=$1 rank=$2 at=$3 log="$work/stage.log" outcome
  : >"$log"
  local start=$SECONDS before=$failures
  run "$launcher" "$log" CCT_KILL_AT="$at" CCT_KILL_RANK="$rank" >"$work/out" 2>&1
  local rc=$?
  # Not by status: mpirun itself exits 137 for a rank killed by SIGKILL.
  [ $((SECONDS - start)) -lt "$limit" ] || fail "$launcher rank $rank $at: hung, stopped by timeout"
  [ "$rc" -ne 0 ] || fail "$launcher rank $rank $at: the launcher exited 0"
  grep -q "^$rank [0-9]* KILL ${at//:/ }\$" "$log" ||
    fail "$launcher rank $rank $at: the kill never happened"
  outcome=$(check_leftovers "$log") || fail "$launcher rank $rank $at: $outcome"
  cat "$log" >>"$work/all.log"
  [ "$failures" -eq "$before" ] || cat "$work/out" "$log"
  printf '%-8s rank %d %-20s %s\n' "$launcher" "$rank" "$at" "$outcome"
}

for launcher in cclaunch mpirun; do
  dry="$work/dry-$launcher.log"
  : >"$dry"
  run "$launcher" "$dry" >"$work/out" 2>&1 || {
    fail "$launcher: the dry run (no kill) failed"
    cat "$work/out"
    continue
  }
  cat "$dry" >>"$work/all.log"
  [ -z "$(segments_of "$dry")" ] || fail "$launcher: the dry run left $(segments_of "$dry")"
  scope=all
  [ "$launcher" = mpirun ] && scope=first
  stages=$(stages_of "$dry" "$scope")
  echo "$launcher: the calls killed at (rank call n): $(tr '\n' ';' <<<"$stages")"
  [ -n "$stages" ] || {
    fail "$launcher: the dry run made no shm call the shim saw"
    continue
  }
  while read -r rank call n; do
    for when in before after; do stage "$launcher" "$rank" "$call:$n:$when"; done
  done <<<"$stages"
done

if [ "$failures" -ne 0 ]; then
  echo "FAIL: $failures failure(s); /dev/shm now holds:"
  ls -l /dev/shm/cct-* 2>/dev/null
  exit 1
fi
echo "PASS: every stage killed on either rank under cclaunch and mpirun; no segment left behind"
