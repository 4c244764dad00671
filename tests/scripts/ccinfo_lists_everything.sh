#!/usr/bin/env bash
# ccinfo on the build tree: every library loads, at least 24 algorithms over
# all 8 collectives, the shm transport and the RapidIO simulator with their
# capabilities, the switch-assisted algorithms, the real
# topology with a fingerprint; the profile section names the profile in
# effect and why, another machine's, the shape it was tuned on and a rule it
# leaves out with file:line, or where it looked when there is none; and a bad
# argument is refused with status 2.
# usage: ccinfo_lists_everything.sh <ccinfo> <shipped profile>
set -euo pipefail
ccinfo=$1 shipped=$2
json=$("$ccinfo" --json) || { echo "FAIL: ccinfo --json exited $?"; echo "$json"; exit 1; }
python3 - "$json" <<'PY'
import json, sys
info = json.loads(sys.argv[1])
refused = [l for l in info["libraries"] if not l["loaded"]]
assert not refused, f"refused libraries: {refused}"
algs = info["algorithms"]
colls = {a["collective"] for a in algs}
assert len(algs) >= 24, f"only {len(algs)} algorithms"
assert len(colls) == 8, f"collectives covered: {sorted(colls)}"
shm = [t for t in info["transports"] if t["name"] == "shm"]
assert shm and "p2p" in shm[0]["capabilities"] and "shm" in shm[0]["capabilities"], info["transports"]
rio = [t for t in info["transports"] if t["name"] == "rapidio_sim"]
assert rio and all(c in rio[0]["capabilities"] for c in ("p2p", "mcast", "aggregate", "atomic")), \
    info["transports"]
switch = {a["name"] for a in algs if "mcast" in a["requires"] or "aggregate" in a["requires"]
          or "atomic" in a["requires"]}
assert switch >= {"switch_bcast", "switch_gather", "switch_reduce", "counter_barrier"}, switch
topo = info["topology"]
assert "error" not in topo and len(topo["fingerprint"]) == 16 and topo["pus"] >= 1, topo
print(f"PASS: {len(algs)} algorithms over {len(colls)} collectives, transports "
      f"{[t['name'] for t in info['transports']]}, topology {topo['summary']} ({topo['fingerprint']})")
PY
status=0
out=$("$ccinfo" --bogus 2>&1) || status=$?
[ "$status" -eq 2 ] || { echo "FAIL: ccinfo --bogus exited $status, want 2"; exit 1; }
grep -q "unknown argument '--bogus'" <<<"$out" || { echo "FAIL: no clear message: $out"; exit 1; }

# The profile section.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed '0,/algorithm: ring/s//algorithm: gone/' "$shipped" >"$dir/p.yaml"
line=$(grep -n "algorithm: gone" "$dir/p.yaml" | cut -d: -f1)
out=$(CCT_PROFILE=$dir/p.yaml "$ccinfo" | sed -n '/^Profile:/,$p')
for want in "  $dir/p.yaml (CCT_PROFILE)" "fingerprint 88adac67bbb9af22 (ANOTHER machine" \
  "  rules for 1 node: np [1, max]" "  LEFT OUT: $dir/p.yaml:$line: "; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL: no '$want' in: $out"; exit 1; }
done
out=$(CCT_PROFILE_PATH=$dir/none XDG_DATA_HOME=$dir "$ccinfo" | sed -n '/^Profile:/,$p')
case $out in
  *"none: no profile declares fingerprint"*"$dir/none"*"built-in defaults"*) ;;
  *) # a profile of this machine in the build tree answers first
    grep -q "(this machine's fingerprint)" <<<"$out" || { echo "FAIL: $out"; exit 1; } ;;
esac
echo "PASS: the profile section names the file, why, the shape, and what it leaves out"
