#!/usr/bin/env bash
# The vector collectives' count patterns in tuning (cct/count_pattern.hpp):
# by default every figure is one call in equal and one in skewed blocks
# (a confirmation's, one in each pattern apart), which the results' counts
# column and the profile's `tuning: vector_counts` say; --vector-counts skewed measures skewed
# blocks alone; a results file is resumed only with the patterns it was
# measured in (status 2, naming both), and the other collectives' rows
# carry no counts.
# usage: ccautotune_vector_counts.sh <ccautotune>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
run() {  # <out dir> [options...]
  local outdir=$1
  shift
  "$tuner" --np 3 --collectives gatherv,bcast --max-bytes 64 --quick --budget 0.02 \
    --transports shm --out "$outdir" "$@"
}

run "$dir/both" >"$dir/both.log" 2>&1 || fail "default run exited $?" "$dir/both.log"
csv=$(ls "$dir"/both/*.csv)
yaml=$(ls "$dir"/both/*.yaml)
head -1 "$csv" | grep -q ',note,counts,datatype,root$' || fail "no counts column" "$csv"
grep -q '^gatherv,' "$csv" || fail "no gatherv rows" "$csv"
# counts by stage, of the gatherv rows: "final equal+skewed", "confirm equal" ...
grep '^gatherv,' "$csv" | awk -F, '{print $12, $14}' | sort -u >"$dir/counts"
! grep -v -E '^(confirm|reconfirm) (equal|skewed)$|^[a-z]+ equal\+skewed$' "$dir/counts" ||
  fail "gatherv rows in other patterns than equal+skewed (a confirmation: one of them)" "$dir/counts"
for confirmed in "confirm equal" "confirm skewed" "reconfirm equal" "reconfirm skewed"; do
  grep -qx "$confirmed" "$dir/counts" || fail "no gatherv row '$confirmed'" "$dir/counts"
done
python3 -c 'import csv, sys; sys.exit(any(r[0] == "bcast" and r[13] for r in csv.reader(open(sys.argv[1]))))' \
  "$csv" || fail "a bcast row with counts" "$csv"
grep -q '^  vector_counts: equal+skewed$' "$yaml" || fail "profile does not say equal+skewed" "$yaml"
echo "PASS: the default measures equal and skewed blocks, and says so"

status=0
run "$dir/both" --resume --vector-counts skewed >"$dir/mixed.log" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "resuming with other patterns: status $status, not 2" "$dir/mixed.log"
grep -q 'holds gatherv rows measured in equal+skewed blocks, and this run measures in skewed blocks' \
  "$dir/mixed.log" || fail "the refusal does not name both" "$dir/mixed.log"
echo "PASS: a resume with other patterns is refused, naming both"

run "$dir/skewed" --vector-counts skewed >"$dir/skewed.log" 2>&1 ||
  fail "skewed run exited $?" "$dir/skewed.log"
! grep '^gatherv,' "$dir"/skewed/*.csv | grep -qvE ',skewed,,[0-9]*$' ||
  fail "a gatherv row not over skewed alone" "$(ls "$dir"/skewed/*.csv)"
grep -q '^  vector_counts: skewed$' "$dir"/skewed/*.yaml || fail "profile does not say skewed"
echo "PASS: --vector-counts skewed"
