#!/usr/bin/env bash
# The shortlist and the planned time on a machine (tuner/shortlist.hpp,
# tuner/plan_time.hpp): --plan measures the two smallest rank counts (2 and
# 3), says how long 4 will take, and measures nothing at 4; --resume then
# measures 4, leaving out what the cost model rules out, with the plan
# made from the job times the first run kept beside its results
# (<fingerprint>.jobs). A malformed job times file is named and costs only
# the plan (--resume --plan says np 4 could not be planned, exit 1). A run
# in one go says before 4 how long it will take, and after it what it took
# against that. The plan names the variants the job leaves out, as the job
# does. A confirmed size is planned, and measured after the others, in
# the first job only. A second job measures the shortlist its first job
# kept (<fingerprint>.shortlists). Under --launcher mpirun each shape is
# planned and timed likewise, a shape across nodes (2 virtual nodes)
# shortlisted and planned from those of as many nodes, and a predicted
# number of ranks per node confirmed there. --plan where a simulated
# fabric is tuned is refused.
# usage: ccautotune_plan.sh <ccautotune>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
run() {
  "$tuner" --np 2,3,4 --collectives allreduce --max-bytes 64 --budget 0.05 --single-job "$@"
}
run --out "$dir/p" --plan >"$dir/plan.log" 2>&1 || fail "--plan exited $?" "$dir/plan.log"
csv=$(sed -n 's/.*; results in \(.*\.csv\)$/\1/p' "$dir/plan.log")
[ -f "$csv" ] || fail "no results file named" "$dir/plan.log"
grep -q "^ccautotune: shm np=4: planned [0-9.e+-]* s, from np=3's job" "$dir/plan.log" ||
  fail "no plan for np 4" "$dir/plan.log"
grep -q "^ccautotune: planned for the sizes not yet measured: [0-9]* s in all" "$dir/plan.log" ||
  fail "no planned total" "$dir/plan.log"
grep -q '^allreduce,shm,1,3,' "$csv" || fail "np 3 was not measured" "$csv"
! grep -q '^allreduce,shm,1,4,' "$csv" || fail "--plan measured np 4" "$csv"
[ ! -e "${csv%.csv}.yaml" ] || fail "--plan wrote a profile" "${csv%.csv}.yaml"
jobs=${csv%.csv}.jobs
grep -q '^1,shm,1,3,' "$jobs" || fail "np 3's job time was not kept" "$jobs"

cp "$jobs" "$dir/jobs.kept"
echo "not,a,job,times,file,row,x" >>"$jobs"
status=0
run --out "$dir/p" --resume --plan >"$dir/bad.log" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "--resume --plan without job times exited $status, want 1" "$dir/bad.log"
grep -q "^ccautotune: $jobs:[0-9]*: bad pass 'not'.*written anew" "$dir/bad.log" ||
  fail "a malformed job times file was not named" "$dir/bad.log"
grep -q "^ccautotune: shm np=4: not planned (no time kept of the jobs below it)" "$dir/bad.log" ||
  fail "no word that np 4 could not be planned" "$dir/bad.log"
cp "$dir/jobs.kept" "$jobs"

run --out "$dir/p" --resume >"$dir/rest.log" 2>&1 || fail "--resume exited $?" "$dir/rest.log"
grep -q "^ccautotune: np=4: [0-9]* of [0-9]* points left out" "$dir/rest.log" ||
  fail "the shortlist left nothing out at np 4" "$dir/rest.log"
grep -q "^ccautotune: shm np=4 took [0-9.e+-]* s (planned [0-9.e+-]* s)" "$dir/rest.log" ||
  fail "--resume did not plan np 4 from the kept job times" "$dir/rest.log"
grep -q '^allreduce,shm,1,4,' "$csv" || fail "np 4 was not measured" "$csv"
[ -f "${csv%.csv}.yaml" ] || fail "no profile after --resume" "$dir/rest.log"
# What the job left out of the variants, the plan said it would (from the
# same rows): allreduce's element types where they changed nothing at 2, 3.
left=$(sed -n 's/^ccautotune: np=4: \(not timed again .*\) (--exhaustive times them)$/\1/p' "$dir/rest.log")
planned=$(sed -n 's/^ccautotune: shm np=4: \(not timed again .*\)$/\1/p' "$dir/plan.log")
[ "$left" = "$planned" ] ||
  fail "the plan said '$planned' of the variants, the job left out '$left'" "$dir/plan.log"

run --out "$dir/q" >"$dir/whole.log" 2>&1 || fail "a run in one go exited $?" "$dir/whole.log"
grep -q "^ccautotune: shm np=4: planned [0-9.e+-]* s, from np=3's job" "$dir/whole.log" ||
  fail "no plan before np 4" "$dir/whole.log"
grep -q "^ccautotune: shm np=4 took [0-9.e+-]* s (planned [0-9.e+-]* s)" "$dir/whole.log" ||
  fail "no time against the plan for np 4" "$dir/whole.log"

# np's second job measures the shortlist its first job made and kept
# (tuner/kept_shortlists.hpp): made again, the reconfirmations below could
# change it. The lines a job's rank 0 prints are matched anywhere in a
# line: output of the forked ranks and of the parent can share one.
# usage: same_shortlist <transport> <shape, as "np=5"> <log>
same_shortlist() {
  local left
  left=$(grep -o "$2: [0-9]* of [0-9]* points left out" "$3" || true)
  [ "$(wc -l <<<"$left")" -eq 2 ] && [ "$(sort -u <<<"$left" | wc -l)" -eq 1 ] ||
    fail "$2's two jobs did not leave out the same points: $left" "$3"
  grep -q "ccautotune: $1 $2: the shortlist of its first job, kept in .*\.shortlists" "$3" ||
    fail "$2's second job did not say it measures its first job's shortlist" "$3"
}

# A predicted size between measured ones (4 between 3 and 5) is planned
# and confirmed last, in the first job only.
confirmed() {
  "$tuner" --np 2,3,5 --predict-np 4 --collectives allreduce --max-bytes 64 --budget 0.05 \
    --out "$dir/c" "$@"
}
confirmed --single-job --plan >"$dir/cplan.log" 2>&1 ||
  fail "--plan with a confirmed size exited $?" "$dir/cplan.log"
grep -q "^ccautotune: shm np=4: planned [0-9.e+-]* s, from np=3's job" "$dir/cplan.log" ||
  fail "no plan for the confirmed np 4" "$dir/cplan.log"
grep -q "^ccautotune: shm np=4: a size predicted, confirmed by this job" "$dir/cplan.log" ||
  fail "the plan did not say np 4 is confirmed" "$dir/cplan.log"
# With the second job this time: it times np 5 again, not np 4.
confirmed --resume >"$dir/crest.log" 2>&1 ||
  fail "--resume with a confirmed size exited $?" "$dir/crest.log"
grep -q "ccautotune: np=4: a size predicted, confirmed by this job" "$dir/crest.log" ||
  fail "no confirming job at np 4" "$dir/crest.log"
same_shortlist shm np=5 "$dir/crest.log"
# A plan after it plans np 5 from the shortlist its jobs kept, not one made
# again from the rows the second jobs added.
confirmed --resume --plan >"$dir/cagain.log" 2>&1 || fail "--resume --plan exited $?" "$dir/cagain.log"
kept5() { grep -o "shm np=5: planned .* the model's figures of the [0-9]* points" "$1" | grep -o "[0-9]* points" | head -1; }
[ -n "$(kept5 "$dir/crest.log")" ] && [ "$(kept5 "$dir/cagain.log")" = "$(kept5 "$dir/crest.log")" ] ||
  fail "np 5 planned from $(kept5 "$dir/cagain.log"), its job kept $(kept5 "$dir/crest.log")" "$dir/cagain.log"
order=$(sed -n 's/^ccautotune: shm np=\([45]\) took.*/\1/p' "$dir/crest.log" | tr -d '\n')
[ "$order" = 545 ] ||
  fail "jobs of np 5 and 4 ran as '$order', want 545 (4 after 5, once)" "$dir/crest.log"

# Under mpirun, as the README's first command tunes (--launcher mpirun,
# whose second job is a second mpirun, resumed): rank 0 says each one-node
# shape's plan and what it took, and keeps the job times and shortlists.
# Under ASan without leak checking for this run alone: Open MPI leaks at
# exit (tests/CMakeLists.txt).
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$tuner" --launcher mpirun \
  --mpirun-args "--oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np 5" \
  --ranks-per-node 2,3,5 --predict-np 4 --collectives allreduce --max-bytes 64 \
  --budget 0.05 --out "$dir/m" >"$dir/mpirun.log" 2>&1 || fail "the run under mpirun exited $?" "$dir/mpirun.log"
grep -q "^ccautotune: shm np=5 took [0-9.e+-]* s (planned [0-9.e+-]* s)" "$dir/mpirun.log" ||
  fail "no time against the plan for np 5 under mpirun" "$dir/mpirun.log"
grep -q "ccautotune: np=4: a size predicted, confirmed by this job" "$dir/mpirun.log" ||
  fail "no confirming shape of 4 ranks under mpirun" "$dir/mpirun.log"
same_shortlist shm np=5 "$dir/mpirun.log"
for np in 2 3 5 4; do
  grep -q "^1,shm,1,$np," "$dir"/m/*.jobs || fail "np $np's job time was not kept under mpirun" "$dir"/m/*.jobs
done

# Across nodes (2 virtual nodes of 4 ranks: 2 x 1, 2 x 2 and 2 x 4 on the
# mpi transport, 2 x 3 predicted): 2 x 4 is shortlisted from the two below
# it, planned from 2 x 2's job, and its second job measures the shortlist
# its first kept; 2 x 3 is confirmed last, in the first job only.
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" CCT_VIRTUAL_NODES=2 "$tuner" --launcher mpirun \
  --mpirun-args "--oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np 8" \
  --nodes 2 --ranks-per-node 1,2,4 --predict-np 3 --collectives allreduce --max-bytes 64 \
  --budget 0.05 --out "$dir/n" >"$dir/nodes.log" 2>&1 || fail "the run across nodes exited $?" "$dir/nodes.log"
grep -q "ccautotune: mpi np=8 (2 nodes): planned [0-9.e+-]* s, from np=4 (2 nodes)'s job" "$dir/nodes.log" ||
  fail "no plan for 2 x 4" "$dir/nodes.log"
grep -q "^ccautotune: mpi np=8 (2 nodes) took [0-9.e+-]* s (planned [0-9.e+-]* s)" "$dir/nodes.log" ||
  fail "no time against the plan for 2 x 4" "$dir/nodes.log"
same_shortlist mpi "np=8 (2 nodes)" "$dir/nodes.log"
grep -q "^2,mpi,2,8," "$dir"/n/*.jobs || fail "2 x 4's second job time was not kept" "$dir"/n/*.jobs
grep -q "ccautotune: np=6 (2 nodes): a size predicted, confirmed by this job.*(--ranks-per-node 3 measures it whole)" \
  "$dir/nodes.log" || fail "no confirming shape of 2 x 3" "$dir/nodes.log"
order=$(sed -n 's/^ccautotune: mpi np=\([68]\) (2 nodes) took.*/\1/p' "$dir/nodes.log" | tr -d '\n')
[ "$order" = 868 ] ||
  fail "shapes 2 x 4 and 2 x 3 ran as '$order', want 868 (2 x 3 after 2 x 4, once)" "$dir/nodes.log"

"$tuner" --fabric tree:4 --plan --out "$dir/s" >"$dir/sim.log" 2>&1 && fail "--plan on a fabric was accepted" "$dir/sim.log"
grep -q "plans a run on this machine" "$dir/sim.log" || fail "no reason for refusing --plan" "$dir/sim.log"
echo "PASS: --plan said np 4's time and measured only 2 and 3; --resume measured 4's shortlist," \
  "planned from the kept job times; a malformed job times file named; a confirmed np 4" \
  "planned, run last and once; second jobs measured their first's shortlists; shapes planned" \
  "under mpirun, across nodes too"
