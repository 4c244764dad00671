#!/usr/bin/env bash
# Two profiles of one machine, tuned minutes apart: how much do they differ, with the winner
# choice before issue 14 (the lowest median, the library or the previous size's winner kept
# within 5%) and after it (ties within the fastest's own noise, 5-10%, go to the library, the
# previous size's winner, then the default parameters; readable boundaries)?
#
# Four consecutive full runs of the old ccautotune; then, for each results file, the new
# ccautotune --resume (it measures only the crossovers its own choices call for) and the old one
# --resume on that same file (its params converted to the old ';' form), so that the two
# profiles of a run come from the same rows. Prints, per pair of consecutive runs, the size
# ranges of each profile and the ranges whose choice differs (ccprofile diff).
#
# usage: stability.sh OLD_BIN NEW_BIN OUT_DIR
#   OLD_BIN: bin/ of a build of f56de8b (git worktree add /tmp/old f56de8b; cmake -S /tmp/old
#            -B /tmp/old/build; cmake --build /tmp/old/build --target ccautotune; ln -s the new
#            build's lib/cct as /tmp/old/build/lib/cct so that both measure the same plugins)
#   NEW_BIN: bin/ of this build
set -euo pipefail
old=$1 new=$2 out=$3
mkdir -p "$out" && cd "$out"
fp() { basename "$(ls "$1"/*.csv)" .csv; }
for r in A B C D; do "$old/ccautotune" --launcher mpirun --out "$PWD/$r" >"$r.log" 2>&1; done
for r in A B C D; do
  mkdir -p "$r.new" "$r.old" && cp "$r"/*.csv "$r.new/"
  "$new/ccautotune" --launcher mpirun --resume --out "$PWD/$r.new" >"$r.new.log" 2>&1
  python3 -c '
import csv, sys
with open(sys.argv[2], "w") as out:
    for row in csv.reader(open(sys.argv[1])):
        row[6] = row[6].replace(",", ";")
        out.write(",".join(row) + "\n")' "$r.new/$(fp "$r.new").csv" "$r.old/$(fp "$r.new").csv"
  "$old/ccautotune" --launcher mpirun --resume --out "$PWD/$r.old" >"$r.old.log" 2>&1
done
ranges() { grep -c "algorithm:" "$1"/*.yaml; }
differ() { "$new/ccprofile" diff "$1"/*.yaml "$2"/*.yaml | grep -c " -> " || true; }
for pair in "A B" "B C" "C D"; do
  set -- $pair
  for kind in old new; do
    echo "$1-$2 $kind: ranges $(ranges "$1.$kind") / $(ranges "$2.$kind"), differing $(differ "$1.$kind" "$2.$kind")"
  done
done
grep -h "noise:" A/*.yaml B/*.yaml C/*.yaml D/*.yaml
