#!/usr/bin/env bash
# The collectives after the first eight on a tuned profile: ccautotune
# under mpirun tunes them on 3 ranks (a quick run), measuring at least two
# algorithms of each and the vector forms in equal and skewed blocks; then
# the unmodified MPI program collectives_check runs on that profile under
# the interposer. Every check passes, and every call of MPI_COMM_WORLD that
# went to the runtime ran an algorithm the profile names for its collective
# (the rest are counted as kept on the library).
# usage: mpi_collectives_tuned.sh <ccautotune> <collectives_check> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
program=$2
interposer=$3
collectives="reduce_scatter_block reduce_scatter allgatherv scan exscan gatherv scatterv alltoallv"

mpirun --allow-run-as-root --oversubscribe -np 3 "$tuner" --collectives "${collectives// /,}" \
  --max-bytes 4k --quick --budget 0.02 --out "$dir/p" >"$dir/tune.log" 2>&1 ||
  fail "ccautotune under mpirun exited $?" "$dir/tune.log"
csv=$(ls "$dir"/p/*.csv)
yaml=$(ls "$dir"/p/*.yaml)
for c in $collectives; do
  n=$(awk -F, -v c="$c" '$1 == c {print $6}' "$csv" | sort -u | wc -l)
  [ "$n" -ge 2 ] || fail "$c: $n algorithm(s) measured, not at least 2" "$csv"
done
grep -q '^  vector_counts: equal+skewed$' "$yaml" || fail "the profile does not say equal+skewed" "$yaml"

mpirun --allow-run-as-root --oversubscribe -np 3 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
  -x CCT_PROFILE="$yaml" "$program" >"$dir/app.out" 2>"$dir/app.err" ||
  fail "collectives_check on the profile exited $?" "$dir/app.err"
grep -q "^collectives_check: 3 ranks, .* 0 failures on all ranks$" "$dir/app.out" ||
  fail "collectives_check on the profile: checks failed" "$dir/app.out"
for c in $collectives; do
  # The algorithms the profile names for c, and those c's world calls ran.
  named=$(awk -v c="  $c:" '$0 == c {in_c = 1; next} in_c && /^  [a-z_]+:$/ {exit}
          in_c && $1 == "algorithm:" {print $2}' "$yaml" | sort -u)
  [ -n "$named" ] || fail "the profile has no rule for $c" "$yaml"
  ran=$(awk -v c="$c" '$1 == "world" && $3 == c {sub(/\(.*/, "", $4); print $4}' "$dir/app.err" |
    sort -u)
  kept=$(grep -c "^  $c: [0-9]* call(s): the profile keeps the MPI library's own call" \
    "$dir/app.err" || true)
  [ -n "$ran" ] || [ "$kept" -gt 0 ] || fail "$c neither ran on the runtime nor was kept" "$dir/app.err"
  for alg in $ran; do
    grep -qx "$alg" <<<"$named" || fail "$c ran $alg, which the profile does not name" "$dir/app.err"
  done
done
echo "PASS: $collectives tuned under mpirun (at least 2 algorithms each), and correct on the" \
  "profile under the interposer, dispatched as it says"
