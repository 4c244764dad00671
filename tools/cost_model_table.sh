#!/usr/bin/env bash
# The simulator's validation table of docs/cost_model.md ("Validation on
# the simulator"), made again by one command: on the fabric tree:64
# (bcast, reduce, allreduce, allgather, alltoall, up to 64 KiB), tuned at 4
# and 16 DSPs and predicted at 64 (and 256), the np-16 rules stretched
# (--predict-np naming only measured sizes), then 64 measured (2 min on
# the 2-core machine) and each profile checked against it (ccprofile
# check). With --with-256, also 256 measured (up to 32 KiB, alltoall 4
# KiB: about 14 min more). The simulator runs in virtual time: the same
# commit gives the same table on any machine.
# Prints the table's rows, in the docs' format; the runs stay in OUT.
# usage: tools/cost_model_table.sh [--with-256] [OUT]   (OUT default: a new temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
with_256=0
if [ "${1:-}" = --with-256 ]; then
  with_256=1
  shift
fi
out=${1:-$(mktemp -d)}
mkdir -p "$out"
bin=${CCT_BUILD_DIR:-build}/bin
C=bcast,reduce,allreduce,allgather,alltoall
predict=64
[ $with_256 -eq 0 ] || predict=64,256

tune() {  # name, then ccautotune's own arguments
  local name=$1
  shift
  "$bin/ccautotune" --fabric tree:64 --out "$out/$name" "$@" >"$out/$name.log" 2>&1 || {
    echo "cost_model_table.sh: ccautotune $* exited $? (see $out/$name.log)" >&2
    exit 1
  }
}
tune predicted --np 4,16 --predict-np "$predict" --collectives $C
tune stretched --np 4,16 --predict-np 16 --collectives $C
tune measured --np 64 --collectives $C
if [ $with_256 -eq 1 ]; then
  tune measured --np 256 --collectives bcast,reduce,allreduce,allgather --max-bytes 32k --resume
  tune measured --np 256 --collectives alltoall --max-bytes 4k --resume
fi
fp=$(sed -n 's/.*fabric tree:64, fingerprint \([0-9a-f]*\);.*/\1/p' "$out/predicted.log" | head -1)
[ ${#fp} -eq 16 ] || {
  echo "cost_model_table.sh: no fabric fingerprint in $out/predicted.log" >&2
  exit 1
}

# One row: "| DSPs | profile | points | within (share) | mean | worst |".
row() {  # np, profile directory, its name in the table
  local np=$1 profile=$2 name=$3 line
  "$bin/ccprofile" check "$out/$profile/$fp.yaml" "$out/measured/$fp.csv" --np "$np" \
    >"$out/$profile.check$np"
  line=$(grep -m1 " sizes, the profile's choice within 5% of the fastest at " "$out/$profile.check$np")
  echo "$line" | sed -n "s/.*: \([0-9]*\) sizes, .* at \([0-9]*\);.* mean \([0-9.]*\)x, worst \([0-9.]*\)x\( (\(.*\))\)\{0,1\}$/\1 \2 \3 \4|\6/p" |
    while IFS='|' read -r figures where; do
      read -r sizes within mean worst <<<"$figures"
      printf '| %s | %s | %s | %s (%s%%) | %sx | %sx (%s) |\n' "$np" "$name" "$sizes" "$within" \
        "$((within * 100 / sizes))" "$mean" "$worst" "$where"
    done
}
echo "| DSPs | profile | points | pick within 5% of the fastest | mean | worst |"
echo "| ---: | --- | ---: | ---: | ---: | --- |"
for np in 64 $([ $with_256 -eq 1 ] && echo 256); do
  row "$np" predicted "predicted from 4 and 16"
  row "$np" stretched "np-16 rules stretched"
done
echo "(runs in $out; $(git rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
