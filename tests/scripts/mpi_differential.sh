#!/usr/bin/env bash
# The interposer (libcct_mpi.so) against the MPI library on random calls:
# tests/mpi/differential_check runs every call of a random sequence of the
# 16 collectives as MPI_<X> (the interposer) and as PMPI_<X> (Open MPI) and
# compares the buffers. Checked: no difference
#  1. on 4 ranks, 20000 calls, the default algorithms, and the runtime's
#     CCT_STATS tables show that it took calls;
#  2. on 2 and 3 ranks, fewer calls;
#  3. on 3 and 4 ranks (4 runs) with CCT_FORCE choosing, per collective, a random
#     algorithm among those that run on one node (from ccinfo's list, the
#     choice drawn from the run's seed and printed), so that runs over time
#     cover many algorithms;
#  4. on 3 ranks with --repeat 4 and forced algorithms as in 3: calls in
#     groups of 4 alike but for their buffers and in-place choice, which the
#     interposer runs again without converting (interposer/run_again.hpp),
#     and CCT_STATS says it did.
# Every run prints its seed; a failure replays with
#   mpirun -np <np> -x LD_PRELOAD=<libcct_mpi.so> [-x CCT_FORCE=...] \
#     <differential_check> --seed <seed> --calls <calls> [--repeat 4]
# Each run is bounded in time (--seconds): at most 210 s in all, inside the
# test's 300 s limit under ASan on a slow machine too (about 15 s here
# unloaded; under ASan beside another test, 30000 calls at np 4 took 66 s).
# usage: mpi_differential.sh <differential_check> <libcct_mpi.so> <ccinfo>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
program=$1
interposer=$2
ccinfo=$3
# The interposer's CCT_STATS rows: communicators, count, collective, algorithm, ...
row='^[a-z0-9=]+ +[0-9]+ +[a-z_]+ +[a-z_]'

new_seed() {
  od -An -N6 -tu8 /dev/urandom | tr -d ' '
}

# run <name> <np> <calls> <seconds> <seed> [mpirun options...]: one run,
# which must end with 0 differences; program_options go to the program.
program_options=()
run() {
  local name=$1 np=$2 calls=$3 seconds=$4 seed=$5
  shift 5
  echo "$name: np $np, seed $seed, $calls calls"
  mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" \
    -x CCT_STATS=1 "$@" "$program" --seed "$seed" --calls "$calls" --seconds "$seconds" \
    "${program_options[@]}" \
    >"$out" 2>"$err" || fail "$name: np $np, seed $seed: exit status $?"
  grep -q "^differential_check: $np ranks, seed $seed, [0-9]* calls, 0 differences$" "$out" ||
    fail "$name: np $np, seed $seed: differences (or no summary)"
  grep '^differential_check: [0-9]* ranks' "$out"
}

# 1. 4 ranks, the default algorithms, every one of the 20000 calls made (the
# bound only guards against a hang): the runtime took calls.
run default 4 20000 150 "$(new_seed)"
grep -q "^differential_check: 4 ranks, seed [0-9]*, 20000 calls, 0 differences$" "$out" ||
  fail "default: fewer than 20000 calls in the time bound"
grep -Eq "$row" "$err" || fail "default: no CCT_STATS rows: the runtime took no calls"
grep -Eq "${row}" <(grep -E '^(world|size=4) ' "$err") ||
  fail "default: no CCT_STATS rows for the 4-rank communicators"

# 2. 2 and 3 ranks.
for np in 2 3; do
  run default "$np" 10000 10 "$(new_seed)"
  grep -Eq "$row" "$err" || fail "np $np: no CCT_STATS rows"
done

# 3. Forced algorithms. Candidates: what one node can run (p2p, shared
# memory or the library; not the multinode ones, which need topology
# levels, nor those needing the RapidIO simulator's mcast, aggregate or
# atomic).
declare -A algorithms  # collective -> its candidates
for entry in $("$ccinfo" | awk '$2 == "needs:" && $3 ~ /^(p2p|shm|library|p2p,shm)$/ &&
                                $5 !~ /needs_levels/ {print $1}'); do
  algorithms[${entry%%/*}]+="${entry#*/} "
done
[ "${#algorithms[@]}" -eq 16 ] || fail "ccinfo lists algorithms for ${#algorithms[@]} collectives, want 16"
# draw_force <seed>: CCT_FORCE of a random candidate per collective, in
# $force, drawn from the run's seed.
draw_force() {
  RANDOM=$(($1 % 32768))
  force=""
  for c in $(printf '%s\n' "${!algorithms[@]}" | sort); do
    read -r -a list <<<"${algorithms[$c]}"
    force+="$c:0-max:${list[RANDOM % ${#list[@]}]};"
  done
  echo "forced: CCT_FORCE=$force"
}
for np in 4 3 4 3; do
  seed=$(new_seed)
  draw_force "$seed"
  run forced "$np" 20000 10 "$seed" -x CCT_FORCE="$force"
  grep -Eq "$row" "$err" || fail "forced, np $np, seed $seed: no CCT_STATS rows"
done
# 4. Calls repeated but for their buffers.
seed=$(new_seed)
draw_force "$seed"
program_options=(--repeat 4)
run repeated 3 10000 10 "$seed" -x CCT_FORCE="$force"
grep -q "^cct: calls run again as the same call before" "$err" ||
  fail "repeated: no call was run again without converting it"
echo "PASS: the interposer against the MPI library on random calls, 2 to 4 ranks, default and" \
  "forced algorithms, calls repeated but for their buffers: no difference"
