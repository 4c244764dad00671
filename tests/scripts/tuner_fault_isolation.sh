#!/usr/bin/env bash
# A candidate that crashes a rank (crash_at_4k: SIGSEGV on rank 1 from 4
# KiB) does not stop the tuning: ccautotune names it with the point and the
# signal, records the point as failed in the results (stage failed, the
# reason in the note), starts the job again past it, measures every other
# candidate, and writes a profile that never picks it at that shape (not
# even at the small sizes where it ran). --resume measures nothing of it
# again. A candidate that hangs rank 1 from 4 KiB (hang_at_4k) is caught by
# --hang-timeout: the job stops with the rank, its pid and state named, the
# candidate is recorded as failed, and the tuning goes on; so is a rank
# stopped by SIGSTOP (stop_at_4k), named as stopped. The same two
# under --launcher mpirun: the job dies (mpirun kills it, or rank 0's wait
# gives up and aborts it), is started again with --resume, and rank 0
# records the candidate as failed and goes on; a failure that is no
# candidate's (a bad argument) is not started again. Ranks are 2; bcast
# only, quick.
# usage: tuner_fault_isolation.sh <ccautotune> <libcct_test_faulty_bcast.so>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
plugin=$2
run() {
  CCT_PLUGIN_PATH=$plugin "$tuner" --np 2 --collectives bcast --quick --budget 0.02 \
    --exclude hang_at_4k,stop_at_4k --out "$dir" "$@" >"$dir/run.log" 2>&1
}

run || fail "the tuning did not go on past the crashing candidate: exit status $?" "$dir/run.log"
grep -Eq "^ccautotune: crash_at_4k failed at bcast shm np=2 [0-9]+[kM]? \(.*rank 1.*signal 11.*\); left out" \
  "$dir/run.log" || fail "the crash is not named with its candidate, point and signal" "$dir/run.log"
csv=$(ls "$dir"/*.csv)
yaml=$(ls "$dir"/*.yaml)
failed=$(python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
failed = [r for r in rows if r["stage"] == "failed"]
assert all(r["algorithm"] == "crash_at_4k" and int(r["bytes"]) >= 4096 for r in failed), failed
assert all("signal 11" in r["note"] for r in failed), failed
# Every other candidate was measured up to the largest size.
largest = max(int(r["bytes"]) for r in rows)
others = {r["algorithm"] for r in rows if r["algorithm"] != "crash_at_4k" and int(r["bytes"]) == largest}
assert len(others) >= 5, others
print(len(failed))
PY
) || fail "the results file does not record the failure as it should" "$csv"
[ "$failed" -eq 1 ] || fail "$failed failed rows, want 1 (the candidate is left out after it)" "$csv"
! grep -q "algorithm: crash_at_4k" "$yaml" || fail "the profile picks the crashing candidate" "$yaml"
grep -Eq "^failed, left out of its shape: crash_at_4k at bcast shm np=2 [0-9]+[kM]?: rank 1 of 2 killed by signal 11" \
  "$dir/run.log" || fail "the summary does not list the failed candidate" "$dir/run.log"
grep -q "crash_at_4k" "$dir/run.log" && grep -q "^profile: $yaml" "$dir/run.log" ||
  fail "no profile written" "$dir/run.log"

rows=$(wc -l <"$csv")
run --resume || fail "--resume exited $?" "$dir/run.log"
! grep -q "crash_at_4k failed" "$dir/run.log" || fail "--resume ran the crashing candidate again" \
  "$dir/run.log"
[ "$(wc -l <"$csv")" -eq "$rows" ] || fail "--resume measured again" "$csv"
# A hang, caught within --hang-timeout (2 s here) rather than --timeout's hour.
start=$(date +%s)
CCT_PLUGIN_PATH=$plugin "$tuner" --np 2 --collectives bcast --quick --budget 0.02 \
  --exclude crash_at_4k,stop_at_4k --hang-timeout 2 --out "$dir/hang" >"$dir/hang.log" 2>&1 ||
  fail "the tuning did not go on past the hanging candidate: exit status $?" "$dir/hang.log"
took=$(($(date +%s) - start))
grep -Eq "^ccautotune: hang_at_4k failed at bcast shm np=2 [0-9]+[kM]? \(no progress for 2 s: got least far rank 1 \(pid [0-9]+, sleeping\)" \
  "$dir/hang.log" || fail "the hang is not named with the rank, its pid and state" "$dir/hang.log"
grep -Eq '^bcast,shm,1,2,[0-9]+,hang_at_4k,,0,0,0,0,failed,"?no progress for 2 s' "$dir/hang"/*.csv ||
  fail "the hang is not recorded as failed" "$dir/hang.log"
! grep -q "algorithm: hang_at_4k" "$dir/hang"/*.yaml || fail "the profile picks the hanging one"
[ "$took" -lt 60 ] || fail "the hang took $took s to be caught"
# A stopped rank (SIGSTOP): named as stopped; the launcher's SIGKILL ends it.
CCT_PLUGIN_PATH=$plugin "$tuner" --np 2 --collectives bcast --quick --budget 0.02 \
  --exclude crash_at_4k,hang_at_4k --hang-timeout 2 --out "$dir/stop" >"$dir/stop.log" 2>&1 ||
  fail "the tuning did not go on past the stopping candidate: exit status $?" "$dir/stop.log"
grep -Eq "^ccautotune: stop_at_4k failed at bcast shm np=2 [0-9]+[kM]? \(no progress for 2 s: got least far rank 1 \(pid [0-9]+, stopped\)" \
  "$dir/stop.log" || fail "the stopped rank is not named as stopped" "$dir/stop.log"
echo "PASS: a crashing candidate named, recorded as failed, left out; the rest tuned; --resume" \
  "does not run it again; a hanging one caught in 2 s and left out (the run took $took s);" \
  "a stopped rank named as stopped"

# Under mpirun, without the outside check (ccautotune_outside tests it;
# with it, at 7 runs a side, this test took 147 s of its 180 s limit, 18
# without). <name> <the other candidate> <regex of the failed row's note>
cluster() {
  local name=$1 other=$2 note=$3 outdir=$dir/cluster-$1
  CCT_PLUGIN_PATH=$plugin timeout --kill-after=10 240 "$tuner" --launcher mpirun \
    --mpirun-args "-np 2 --oversubscribe" --collectives bcast --quick --budget 0.02 \
    --exclude "$other,stop_at_4k" --hang-timeout 2 --outside-runs 0 --out "$outdir" \
    >"$outdir.log" 2>&1 ||
    fail "under mpirun the tuning did not go on past $name: exit status $?" "$outdir.log"
  grep -q "^ccautotune: the job under mpirun failed (exit status [0-9]*); starting it again with --resume" \
    "$outdir.log" || fail "under mpirun the job was not started again past $name" "$outdir.log"
  [ "$(grep -c ",$name,.*,failed," "$outdir"/*.csv)" -eq 1 ] ||
    fail "under mpirun $name is not recorded as failed once" "$outdir.log"
  grep -Eq ",$name,,0,0,0,0,failed,\"?$note" "$outdir"/*.csv ||
    fail "under mpirun the failed row of $name does not say why" "$outdir"/*.csv
  ! grep -q "algorithm: $name" "$outdir"/*.yaml || fail "under mpirun the profile picks $name"
  [ ! -e "$outdir"/*.running ] || fail "under mpirun the note of the running candidate was left"
}
# The crash is told by the relaunch, or, where mpirun is slow to end the
# job (an instrumented rank's crash report under load), first by the rank
# left waiting, which names the crashed rank as exited.
cluster crash_at_4k hang_at_4k "(the earlier run under mpirun died while measuring it|.*no progress for 2 s; waiting for rank 1 \(pid [0-9]+, exited\))"
cluster hang_at_4k crash_at_4k \
  "barrier/dissemination failed: .*no progress for 2 s; waiting for rank 1 \(pid [0-9]+, sleeping"
status=0
CCT_PLUGIN_PATH=$plugin "$tuner" --launcher mpirun --mpirun-args "-np 2 --oversubscribe" \
  --collectives bcast --quick --exclude no_such_algorithm --out "$dir/bad" >"$dir/bad.log" 2>&1 ||
  status=$?
[ "$status" -eq 2 ] || fail "a bad argument under mpirun exited $status, want 2" "$dir/bad.log"
! grep -q "starting it again" "$dir/bad.log" || fail "a bad argument was started again" \
  "$dir/bad.log"
echo "PASS: under mpirun a crashing and a hanging candidate are recorded as failed and left out," \
  "the job started again past them; a bad argument is not started again"
