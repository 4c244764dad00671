#!/usr/bin/env bash
# Every algorithm that needs only p2p, over the mpi transport: the
# interposer (with CCT_TRANSPORT=mpi) runs tests/mpi/interposer_check and
# tests/mpi/collectives_check with CCT_FORCE choosing one algorithm per
# collective, round after round until each algorithm had its turn. A round
# runs one program on 3 ranks and the other on 4, and the next round the
# other way round, so that every algorithm runs on both sizes and under
# both programs in half the jobs of every pairing (20: bcast has 10
# algorithms). Every check passes, and the runtime's tables show the forced
# algorithm ran.
# usage: mpi_transport.sh <interposer_check> <collectives_check> <libcct_mpi.so> <ccinfo>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
programs=("$1" "$2")
interposer=$3
ccinfo=$4

declare -A algorithms  # collective -> its p2p-only algorithms
# (but those that need topology levels: one machine's MPI job has none that
# they can use, so they never run here)
for entry in $("$ccinfo" | awk '$2 == "needs:" && $3 == "p2p" && $5 !~ /needs_levels/ {print $1}'); do
  algorithms[${entry%%/*}]+="${entry#*/} "
done
collectives=$("$ccinfo" --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["collectives"]))')
[ "${#algorithms[@]}" -eq "$collectives" ] ||
  fail "p2p algorithms for ${#algorithms[@]} collectives, want all $collectives"
rounds=0
for c in "${!algorithms[@]}"; do
  n=$(wc -w <<<"${algorithms[$c]}")
  [ "$n" -gt "$rounds" ] && rounds=$n
done

for ((round = 0; round < rounds; ++round)); do
  force=""
  declare -A chosen=()
  for c in "${!algorithms[@]}"; do
    read -r -a list <<<"${algorithms[$c]}"
    chosen[$c]=${list[round % ${#list[@]}]}
    force+="$c:0-max:${chosen[$c]};"
  done
  : >"$err"
  for i in 0 1; do
    np=$((3 + (round + i) % 2))
    program=${programs[i]}
    mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" \
      -x CCT_TRANSPORT=mpi -x CCT_STATS=1 -x CCT_FORCE="$force" "$program" >"$out" 2>>"$err" ||
      fail "np $np, CCT_FORCE=$force, $program: exit status $?"
    grep -q "^[a-z_]*: $np ranks, .* 0 failures on all ranks$" "$out" ||
      fail "np $np, CCT_FORCE=$force, $program: checks failed"
  done
  for c in "${!chosen[@]}"; do
    # The interposer's CCT_STATS rows: communicators, count, collective, algorithm, ...
    grep -Eq "^[a-z0-9=]+ +[0-9]+ +$c +${chosen[$c]}" "$err" ||
      fail "round $round: $c/${chosen[$c]} did not run"
  done
done
echo "PASS: every p2p algorithm over the mpi transport, $rounds rounds, each program on 3 and 4 ranks in turn"
