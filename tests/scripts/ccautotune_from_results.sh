#!/usr/bin/env bash
# ccautotune --from-results: a machine of this one's kind with twice every
# count (given to hwloc as a synthetic topology) gets a profile from this
# machine's results, measuring nothing: this machine's rules as measured,
# its own np 4 predicted by the cost model, its own fingerprint (ccinfo
# takes the profile as this machine's), and the results' settings with
# where they came from. Refused, with status 2: results without their
# profile, of a machine of another kind, of this machine itself, and
# beside --np.
# usage: ccautotune_from_results.sh <ccautotune> <ccinfo>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
ccinfo=$2
"$tuner" --np 2 --collectives bcast,allreduce --max-bytes 1k --quick --budget 0.02 --single-job \
  --datatypes none --roots none --out "$dir/small" >"$out" 2>&1 || fail "the small run exited $?"
csv=$(ls "$dir"/small/*.csv)
summary=$(sed -n 's/^  summary: //p' "$dir"/small/*.yaml)
# hwloc synthetic descriptions (arities per level) of this machine's kind
# with twice every count, and of another kind: the same with its L3 level
# left out, or with one where it has none (a machine's fingerprint leaves
# caches out, so the counts differ too).
read -r twice other < <(python3 - "$summary" <<'PY'
import re, sys
items = [(m[1], 2 * int(m[2])) for m in re.finditer(r'(\w+):(\d+)(?:\([^)]*\))?', sys.argv[1])]
def synthetic(items):
    arities, above = [], 1
    for label, count in items:
        arities.append(f'{label}:{count // above}')
        above = count
    return '_'.join(arities)
labels = [label for label, _ in items]
below = next(i for i, label in enumerate(labels) if label in ('l2', 'core'))
other = ([i for i in items if i[0] != 'l3'] if 'l3' in labels
         else items[:below] + [('l3', items[below - 1][1])] + items[below:])
print(synthetic(items), synthetic(other))
PY
)
twice="synthetic:${twice//_/ }"
other="synthetic:${other//_/ }"

CCT_TOPOLOGY=$twice "$tuner" --from-results "$csv" --out "$dir/big" >"$out" 2>&1 ||
  fail "--from-results exited $?"
grep -q "; from the results of $csv (fingerprint .*), differing in .*: their rules as measured" \
  "$out" || fail "the run does not say where its rules come from"
yaml=$(ls "$dir"/big/*.yaml)
[ "$(basename "$yaml")" != "$(basename "$csv" .csv).yaml" ] || fail "the profile has the results' fingerprint"
grep -q "^  from_results: \"$csv (fingerprint " "$yaml" || fail "the profile does not say its origin" "$yaml"
grep -q '^  np: 2$' "$yaml" || fail "the profile does not keep the results' settings" "$yaml"
grep -q '^        measured_np: 2$' "$yaml" || fail "no rules as measured at np 2" "$yaml"
grep -q '^        predicted: {np: 4, from_np: 2' "$yaml" || fail "no rules predicted for np 4" "$yaml"
[ ! -e "$dir/big/$(basename "$csv")" ] || fail "results written beside the new profile"
env -u CCT_PROFILE CCT_TOPOLOGY="$twice" CCT_PROFILE_PATH="$dir/big" "$ccinfo" >"$out" 2>&1 ||
  fail "ccinfo exited $?"
grep -q "^  tuned .* (this machine)$" "$out" || fail "ccinfo does not take it as this machine's"

refused() {  # <what> <expected text> <command...>
  local what=$1 text=$2 status=0
  shift 2
  "$@" >"$out" 2>&1 || status=$?
  [ "$status" -eq 2 ] || fail "$what: status $status, want 2"
  grep -qF -- "$text" "$out" || fail "$what: not '$text'"
}
refused "another kind" "is of a machine of another kind" \
  env CCT_TOPOLOGY="$other" "$tuner" --from-results "$csv" --out "$dir/other"
refused "this machine's own" "holds this machine's own figures" \
  "$tuner" --from-results "$csv" --out "$dir/own"
mkdir "$dir/bare" && cp "$csv" "$dir/bare/"
refused "no profile beside" "no profile beside $dir/bare/" \
  env CCT_TOPOLOGY="$twice" "$tuner" --from-results "$dir/bare/$(basename "$csv")" --out "$dir/b"
refused "with --np" "--from-results measures nothing" \
  "$tuner" --from-results "$csv" --np 4 --out "$dir/np"
echo "PASS: a machine of the kind gets the results' rules and its own sizes predicted; refusals"
