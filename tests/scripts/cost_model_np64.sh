#!/usr/bin/env bash
# The np-64 figure of docs/cost_model.md's simulator table holds: the
# table made again (tools/cost_model_table.sh: tree:64 tuned at 4 and 16
# DSPs, predicted at 64, 64 measured) must give the predicted profile at
# least as many points within 5% of the fastest, of the same number of
# points, as the docs' row says. The simulator is deterministic, so any
# change is a change of the code: one that lowers the figure fails here;
# one that raises it is said, for the docs to be updated. The long tier
# (about 2 min: the measurement at np 64).
# usage: cost_model_np64.sh <source dir> <build dir>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
src=$1
build=$2
docs=$src/docs/cost_model.md

# "| 64 | predicted from 4 and 16 | 97 | 91 (93%) | ..." -> "97 91"
figures() { sed -n 's/^| 64 | predicted from 4 and 16 | \([0-9]*\) | \([0-9]*\) (.*/\1 \2/p' "$1"; }
read -r stated_points stated_within <<<"$(figures "$docs")"
[ -n "${stated_within:-}" ] || fail "no np-64 predicted row in $docs" "$docs"

CCT_BUILD_DIR=$build "$src/tools/cost_model_table.sh" "$dir/runs" >"$out" 2>"$err" ||
  fail "tools/cost_model_table.sh exited $?"
read -r points within <<<"$(figures "$out")"
[ -n "${within:-}" ] || fail "no np-64 predicted row in the table made" "$out"
[ "$points" -eq "$stated_points" ] ||
  fail "np 64: $points points checked, the docs' table has $stated_points" "$out"
[ "$within" -ge "$stated_within" ] ||
  fail "np 64 predicted: within 5% at $within of $points points, the docs state $stated_within" \
    "$out" "$dir/runs/predicted.check64"
[ "$within" -eq "$stated_within" ] ||
  echo "NOTE: np 64 predicted: within 5% at $within of $points points, more than the docs' $stated_within: update docs/cost_model.md (tools/cost_model_table.sh)"
echo "PASS: np 64 predicted from 4 and 16: within 5% at $within of $points points (docs: $stated_within)"
