#!/usr/bin/env bash
# ccautotune end to end on 2 ranks: a small quick run (its options given as
# --opt=value as well as --opt value) writes a results file
# with one row per point (the second job's confirmations, allreduce's
# finalists in float and double, bcast's at root 1) and a profile that its own load-back
# accepts; after
# a simulated crash (the last row cut in half) --resume measures the
# missing point first and keeps every whole row, no point appears twice,
# and the profile is written again;
# an existing file without --resume, a bad argument, or an algorithm no
# plugin provides is refused with status 2.
# usage: ccautotune_resume.sh <ccautotune>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
profiles=$dir/profiles
run() {
  "$tuner" --np 2 --collectives=barrier,bcast,allreduce --max-bytes=4k --quick --budget 0.05 \
    --out "$profiles" "$@"
}
# The profile of this machine: written, named by the fingerprint, shown.
check_profile() {
  grep -q "^profile: $yaml\$" "$1" || fail "no 'profile: $yaml' line" "$1"
  grep -q '^schema: 3$' "$yaml" || fail "no 'schema: 3'" "$yaml"
  grep -q "^  fingerprint: $fp\$" "$yaml" || fail "no fingerprint $fp" "$yaml"
  grep -q '^  ranks_per_node: 2$' "$yaml" || fail "ranks_per_node is not 2" "$yaml"
  grep -q '^  bcast:$' "$yaml" || fail "no bcast rules" "$yaml"
  grep -Eq '^bcast +shm +1-max +0-' "$1" || fail "no bcast line in the table" "$1"
}

run >"$dir/first.log" || fail "first run exited $?" "$dir/first.log"
fp=$(sed -n 's/.*, fingerprint \([0-9a-f]*\);.*/\1/p' "$dir/first.log")
[ -n "$fp" ] || fail "no fingerprint in the log" "$dir/first.log"
csv=$profiles/$fp.csv
yaml=$profiles/$fp.yaml
check_profile "$dir/first.log"
header='collective,transport,nodes,np,bytes,algorithm,params,median_s,min_s,max_s,reps,stage,note,counts,datatype,root'
[ "$(head -1 "$csv")" = "$header" ] || fail "header is '$(head -1 "$csv")'"
rows=$(($(wc -l <"$csv") - 1))
[ "$rows" -ge 10 ] || fail "only $rows rows" "$csv"
grep -q '^bcast,shm,1,2,1,knomial,radix=4,' "$csv" || fail "no knomial row" "$csv"
# The second job timed the first one's confirmations again.
grep -q "^ccautotune: a second job times each size's picks again" "$dir/first.log" ||
  fail "no second job" "$dir/first.log"
[ "$(grep -c ',confirm,' "$csv")" -gt 0 ] || fail "no confirmation rows" "$csv"
# Every size the first job confirmed, the second timed again. (Not always
# the same candidates: a size's picks include the size before's winner,
# which the second job's figures may change.)
sizes_of() { grep ",$1," "$csv" | cut -d, -f1,5 | sort -u; }
[ -z "$(comm -23 <(sizes_of confirm) <(sizes_of reconfirm))" ] ||
  fail "sizes confirmed but not reconfirmed: $(comm -23 <(sizes_of confirm) <(sizes_of reconfirm) | tr '\n' ' ')" "$csv"
# allreduce's finalists measured again in float and double (--datatypes'
# default), and what that made of the profile said.
for type in int32 float double; do
  grep -q "^allreduce,shm,1,2,.*,typed,,,$type,\$" "$csv" || fail "no allreduce row in $type" "$csv"
done
grep -q "^element types: .* of .*2 (reduction, type) pairs measured" "$dir/first.log" ||
  fail "nothing said of allreduce's types" "$dir/first.log"
grep -q '^  datatypes: float, double$' "$yaml" || fail "no datatypes setting" "$yaml"
# bcast's finalists measured again at root 0 and root 1 (--roots' default),
# and what that made of the profile said.
for root in 0 1; do
  grep -q "^bcast,shm,1,2,.*,rooted,,,,$root\$" "$csv" || fail "no bcast row at root $root" "$csv"
done
grep -q "^roots: .* of .*1 rooted collectives measured" "$dir/first.log" ||
  fail "nothing said of bcast's roots" "$dir/first.log"
grep -q '^  roots: last$' "$yaml" || fail "no roots setting" "$yaml"
# --max-bytes=4k: the largest size measured is 4 KiB.
[ "$(cut -d, -f5 "$csv" | sort -n | tail -1)" = 4096 ] || fail "sizes beyond --max-bytes=4k" "$csv"

# A crash in the middle of the last row: half of it stays, without newline.
last=$(tail -1 "$csv")
head -n -1 "$csv" >"$dir/kept"
cp "$dir/kept" "$dir/cut" && printf '%s' "${last:0:20}" >>"$dir/cut" && mv "$dir/cut" "$csv"
run --resume >"$dir/second.log" || fail "resume exited $?" "$dir/second.log"
grep -q '^\[1/1\] ' "$dir/second.log" || fail "resume did not measure 1 point" "$dir/second.log"
# Every whole row is kept as it was, and the cut point is measured again.
# (The file may grow: the point's new figure can change a later decision
# of the search, whose new points are then measured too.)
[ -z "$(comm -23 <(sort "$dir/kept") <(sort "$csv"))" ] || fail "rows lost in the resume" "$csv"
grep -qF "$(cut -d, -f1-7 <<<"$last")," "$csv" || fail "the cut point was not measured again" "$csv"
[ $(($(wc -l <"$csv") - 1)) -ge "$rows" ] || fail "fewer than $rows rows after resume" "$csv"
# A point's key: its first 7 columns (params quoted where they hold a
# comma), its own element type and root, and a confirmation's and a
# check's own, in each of the two jobs (tuner/results_csv.hpp).
dups=$(python3 -c '
import csv, sys
for r in csv.reader(open(sys.argv[1])):
    print(",".join(r[:7]) + " " + r[14] + " " + r[15] + (" " + r[11] if r[11] in ("confirm", "reconfirm", "recheck") else ""))' "$csv" |
  sort | uniq -d)
[ -z "$dups" ] || fail "measured twice: $dups"
check_profile "$dir/second.log"

status=0
run >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "rerun without --resume exited $status, want 2"
status=0
"$tuner" --bogus >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--bogus exited $status, want 2"
status=0
"$tuner" --algorithms bogus --out "$dir/none" >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--algorithms bogus exited $status, want 2"
echo "PASS: $rows points and a profile, resumed after a cut row without repeating any"
