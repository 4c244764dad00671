#!/usr/bin/env bash
# ccinfo on the build tree: every library loads, at least 24 algorithms over
# every collective of the table (at least 13; each has its default), the
# shm transport and the RapidIO simulator with their capabilities, the switch-assisted algorithms, the real
# topology with a fingerprint; a library of another ABI version shown
# refused with its reason beside the others, and a library's bad entries
# shown refused under it, in text and in JSON; the profile section names the profile in
# effect and why, another machine's, the shape it was tuned on and a rule it
# leaves out with file:line, or where it looked when there is none, in text
# and in JSON with the keys it has always had; and a bad argument is refused
# with status 2.
# usage: ccinfo_lists_everything.sh <ccinfo> <shipped profile> <bad plugin> <mixed plugin>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ccinfo=$1 shipped=$2 bad_plugin=$3 mixed_plugin=$4
json=$("$ccinfo" --json) || { echo "FAIL: ccinfo --json exited $?"; echo "$json"; exit 1; }
python3 - "$json" <<'PY'
import json, sys
info = json.loads(sys.argv[1])
refused = [l for l in info["libraries"] if not l["loaded"] or l["refused_entries"]]
assert not refused, f"refused libraries: {refused}"
algs = info["algorithms"]
colls = {a["collective"] for a in algs}
assert len(algs) >= 24, f"only {len(algs)} algorithms"
table = {c["name"] for c in info["collectives"]}
assert len(table) >= 13 and colls == table, f"collectives covered: {sorted(colls)}, table {sorted(table)}"
shm = [t for t in info["transports"] if t["name"] == "shm"]
assert shm and "p2p" in shm[0]["capabilities"] and "shm" in shm[0]["capabilities"], info["transports"]
rio = [t for t in info["transports"] if t["name"] == "rapidio_sim"]
assert rio and all(c in rio[0]["capabilities"] for c in ("p2p", "mcast", "aggregate", "atomic")), \
    info["transports"]
switch = {a["name"] for a in algs if "mcast" in a["requires"] or "aggregate" in a["requires"]
          or "atomic" in a["requires"]}
assert switch >= {"switch_bcast", "switch_gather", "switch_reduce", "counter_barrier"}, switch
topo = info["topology"]
assert "error" not in topo and len(topo["fingerprint"]) == 16 and len(topo["exact_fingerprint"]) == 16 and topo["pus"] >= 1, topo
# The keys, in the order ccinfo has always written them.
def keys(obj, want):
    assert list(obj) == want.split(), f"keys {list(obj)}, want {want}"
keys(info, "searched warnings libraries transports algorithms collectives profile topology cuda")
for c in info["collectives"]:
    keys(c, "name mpi rooted reduction vector size_key default")
    assert c["default"] in {a["name"] for a in algs if a["collective"] == c["name"]}, c
for lib in info["libraries"]:
    keys(lib, "path loaded abi_version reason exports refused_entries")
for t in info["transports"]:
    keys(t, "name doc library capabilities latency_ns bandwidth_bytes_per_ns")
for a in algs:
    keys(a, "collective name doc library requires limits min_ranks max_ranks cost_shape params")
    # Every algorithm but the MPI library's own call states its cost shape.
    assert a["cost_shape"] == ("library" not in a["requires"]), a
    for p in a["params"]:
        keys(p, "name doc type default " + ("candidates" if "candidates" in p else
                                             "lo hi step step_kind"))
keys(topo, "summary fingerprint exact_fingerprint cores pus")
assert set(info["profile"]) >= {"path", "why", "searched", "error"}, info["profile"]
print(f"PASS: {len(algs)} algorithms over {len(colls)} collectives, transports "
      f"{[t['name'] for t in info['transports']]}, topology {topo['summary']} ({topo['fingerprint']})")
PY
status=0
output=$("$ccinfo" --bogus 2>&1) || status=$?
[ "$status" -eq 2 ] || { echo "FAIL: ccinfo --bogus exited $status, want 2"; exit 1; }
grep -q "ccinfo: .*--bogus" <<<"$output" || { echo "FAIL: no clear message: $output"; exit 1; }

# The profile section, on a profile of another machine.
sed -e '0,/algorithm: ring/s//algorithm: gone/' \
  -e 's/^  fingerprint: .*/  fingerprint: 00000000deadbeef/' "$shipped" >"$dir/p.yaml"
line=$(grep -n "algorithm: gone" "$dir/p.yaml" | cut -d: -f1)
output=$(CCT_PROFILE=$dir/p.yaml "$ccinfo" | sed -n '/^Profile:/,$p')
for want in "  $dir/p.yaml (CCT_PROFILE)" "fingerprint 00000000deadbeef (ANOTHER machine" \
  "  rules for 1 node: np [1, max]" "  LEFT OUT: $dir/p.yaml:$line: "; do
  grep -qF -- "$want" <<<"$output" || { echo "FAIL: no '$want' in: $output"; exit 1; }
done
CCT_PROFILE=$dir/p.yaml "$ccinfo" --json | python3 -c '
import json, sys
p = json.load(sys.stdin)["profile"]
want = ("path why similar differences searched error date tool_version fingerprint this_machine "
        "summary shapes left_out tuning").split()
assert list(p) == want, f"profile keys {list(p)}, want {want}"
assert p["why"] == "CCT_PROFILE" and not p["this_machine"] and p["left_out"], p
assert not p["similar"] and p["differences"] == "", p
' || { echo "FAIL: ccinfo --json on $dir/p.yaml"; exit 1; }
# Rules the cost model predicted say so (every bucket of the range predicted).
sed -e 's/^      - np: \[1, max\]$/&\n        predicted: {np: 1, from_np: 2}/' "$shipped" >"$dir/predicted.yaml"
output=$(CCT_PROFILE=$dir/predicted.yaml "$ccinfo" | sed -n '/^Profile:/,$p')
grep -qF "  rules for 1 node: np [1, max] predicted" <<<"$output" ||
  { echo "FAIL: predicted rules not marked in: $output"; exit 1; }
output=$(env -u CCT_PROFILE CCT_PROFILE_PATH="$dir/none" XDG_DATA_HOME="$dir" "$ccinfo" |
  sed -n '/^Profile:/,$p')
case $output in
  *"none: no profile declares fingerprint"*"$dir/none"*"nor one of a machine of this kind"*"built-in defaults"*) ;;
  *) # a profile of this machine (or of its kind) in the build tree answers first
    grep -Eq "\((this machine's fingerprint|a machine of the same kind .*)\)$" <<<"$output" ||
      { echo "FAIL: $output"; exit 1; } ;;
esac
# CCT_PROFILE=none wins over a profile in the path.
output=$(CCT_PROFILE=none CCT_PROFILE_PATH=$(dirname "$shipped") "$ccinfo" | sed -n '/^Profile:/,$p')
grep -qx "  none (CCT_PROFILE=none): the runtime uses its built-in defaults" <<<"$output" ||
  { echo "FAIL: CCT_PROFILE=none: $output"; exit 1; }
echo "PASS: the profile section names the file, why, the shape, and what it leaves out"
# A library of another ABI version is listed, refused with its reason, and
# costs only itself; ccinfo's status (1) says something was refused.
status=0
output=$(CCT_PLUGIN_PATH=$bad_plugin "$ccinfo" 2>&1) || status=$?
entry=$(grep -A1 -F "$bad_plugin" <<<"$output" | tail -n 1)
[[ $entry == *"REFUSED: algorithm set declares ABI version 99, this host speaks versions 2 and 1"* ]] ||
  { echo "FAIL: ccinfo does not show the refused library with its reason"; echo "$output"; exit 1; }
grep -q "libcct_bcast_baseline.so" <<<"$output" ||
  { echo "FAIL: a refused library hid the others"; echo "$output"; exit 1; }
[ "$status" -eq 1 ] || { echo "FAIL: ccinfo exited $status with a refused library, want 1"; exit 1; }
echo "PASS: a library of another ABI version is shown refused with its reason; the others load"
# A library's bad entries are listed under it, each refused with its
# reason, while its good entry loads; ccinfo's status (1) says so.
status=0
output=$(CCT_PLUGIN_PATH=$mixed_plugin "$ccinfo" 2>&1) || status=$?
lines=$(grep -A6 -F "$mixed_plugin" <<<"$output")
for want in "    loaded, ABI v2" "    REFUSED entry 2: names collective 99, unknown to this host" \
  "    REFUSED bcast/mixed_bad_range: parameter 'segment' has an empty or endless range"; do
  grep -qxF -- "$want" <<<"$lines" || { echo "FAIL: no '$want' under the library"; echo "$output"; exit 1; }
done
grep -q "  bcast/mixed_good " <<<"$output" || { echo "FAIL: the good entry is not listed"; echo "$output"; exit 1; }
[ "$status" -eq 1 ] || { echo "FAIL: ccinfo exited $status with a refused entry, want 1"; exit 1; }
json=$(CCT_PLUGIN_PATH=$mixed_plugin "$ccinfo" --json) || true  # exits 1: an entry was refused
python3 -c '
import json, sys
mixed = [l for l in json.load(sys.stdin)["libraries"] if l["path"] == sys.argv[1]]
assert mixed and mixed[0]["loaded"] and len(mixed[0]["refused_entries"]) == 4, mixed
assert "entry 2: names collective 99, unknown to this host" in mixed[0]["refused_entries"], mixed
' "$mixed_plugin" <<<"$json" || { echo "FAIL: ccinfo --json does not list the refused entries"; exit 1; }
echo "PASS: a library's bad entries are shown refused with their reasons; its good one loads"
