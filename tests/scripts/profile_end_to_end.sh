#!/usr/bin/env bash
# ccautotune makes a profile (np 2, bcast and allreduce); the C example app
# run under it gives correct results, and every bcast and allreduce call is
# served by the profile (CCT_LOG=debug names the origin of each choice) with
# an algorithm the profile names. The rules ccautotune prints, pasted into
# CCT_FORCE, run as printed. A malformed profile costs only itself, named
# with its file and line. A profile whose rules keep the MPI library runs
# their fallbacks in a program without MPI, and says so. A machine with no
# profile of its own takes that of a machine of its kind, saying so. Rules
# the cost model predicted are said to be, once and on each call.
# usage: profile_end_to_end.sh <bin dir>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
bin=$1

"$bin/ccautotune" --np 2 --collectives bcast,allreduce --quick --budget 0.05 --out "$dir" \
  >"$dir/tune.log" 2>&1 || fail "ccautotune exited $?" "$dir/tune.log"
yaml=$(ls "$dir"/*.yaml)
CCT_PROFILE=$yaml CCT_LOG=debug CCT_STATS=1 "$bin/cclaunch" -n 2 "$bin/cct_example_app" \
  >"$dir/app.log" 2>&1 || fail "example app exited $?" "$dir/app.log"
grep -q "2 ranks, all results correct" "$dir/app.log" || fail "wrong results" "$dir/app.log"
calls=$(grep -cE '^cct: rank [01]: (bcast|allreduce) ' "$dir/app.log")
[ "$calls" -ge 20 ] || fail "only $calls bcast/allreduce calls logged" "$dir/app.log"
grep -E '^cct: rank [01]: (bcast|allreduce) ' "$dir/app.log" | grep -v '(profile)$' &&
  fail "calls above were not served by the profile" "$yaml"
for choice in $(grep -E '^cct: rank [01]: (bcast|allreduce) ' "$dir/app.log" | awk '{print $8}' | sort -u); do
  alg=${choice%%(*}
  grep -q "algorithm: $alg\$" "$yaml" || fail "$alg ran but the profile does not name it" "$yaml"
done

# What ccautotune prints pastes back: each line of its rules table
# (collective transport np bytes algorithm median_us), turned into the
# CCT_FORCE rule collective:bytes:algorithm, makes the runtime run exactly
# what was printed, as its log prints it.
awk '$2 == "shm" && $1 ~ /^(bcast|allreduce)$/ && $3 ~ /^1-/ {print $1 ":" $4 ":" $5}' \
  "$dir/tune.log" >"$dir/printed"
[ -s "$dir/printed" ] || fail "no rules table in ccautotune's output" "$dir/tune.log"
force=$(paste -sd';' "$dir/printed")
CCT_FORCE=$force CCT_PROFILE=$yaml CCT_LOG=debug "$bin/cclaunch" -n 2 "$bin/cct_example_app" \
  >"$dir/forced.log" 2>&1 || fail "example app exited $? under CCT_FORCE=$force" "$dir/forced.log"
grep -q "2 ranks, all results correct" "$dir/forced.log" || fail "wrong results" "$dir/forced.log"
grep -E '^cct: rank [01]: (bcast|allreduce) ' "$dir/forced.log" | grep -v '(CCT_FORCE)$' &&
  fail "calls above did not follow CCT_FORCE=$force" "$dir/forced.log"
# Each call ran the printed choice of the range holding its size.
python3 - "$dir/printed" "$dir/forced.log" <<'PY' || fail "a call did not run what was printed" "$dir/forced.log"
import re, sys
units = {"": 1, "k": 1 << 10, "M": 1 << 20, "G": 1 << 30}
def size(text):
    if text == "max":
        return float("inf")
    number, unit = re.fullmatch(r"(\d+)([kMG]?)", text).groups()
    return int(number) * units[unit]
rules = []
for line in open(sys.argv[1]):
    collective, sizes, choice = line.strip().split(":", 2)
    lo, hi = sizes.split("-")
    rules.append((collective, size(lo), size(hi), choice))
for line in open(sys.argv[2]):
    call = re.match(r"cct: rank \d+: (\w+) (\d+) B -> (\S+) \(CCT_FORCE\)$", line)
    if not call:
        continue
    collective, nbytes, ran = call.group(1), int(call.group(2)), call.group(3)
    printed = [c for (k, lo, hi, c) in rules if k == collective and lo <= nbytes < hi]
    if printed != [ran]:
        sys.exit(f"{collective} {nbytes} B ran {ran}, printed: {printed}")
PY
forced_calls=$(grep -c '(CCT_FORCE)$' "$dir/forced.log")
[ "$forced_calls" -ge 20 ] || fail "only $forced_calls calls logged under CCT_FORCE" "$dir/forced.log"
grep -qE '^(bcast|allreduce) ' "$dir/app.log" || fail "no stats table" "$dir/app.log"

# A malformed profile is refused with file:line, and costs only itself: the
# app runs on the built-in defaults.
printf 'schema: 1\nrules: [\n' >"$dir/bad.yaml"
CCT_PROFILE=$dir/bad.yaml "$bin/cclaunch" -n 2 "$bin/cct_example_app" >"$dir/bad.log" 2>&1 ||
  fail "the app failed with a malformed profile" "$dir/bad.log"
grep -q "^cct: $dir/bad.yaml:[0-9]*: .*; the profile is not used: the MPI library.s own collectives in an MPI program, else built-in defaults$" \
  "$dir/bad.log" || fail "no file:line for the bad profile" "$dir/bad.log"
! grep -q "no profile for this machine" "$dir/bad.log" ||
  fail "a profile given but unreadable is reported as missing" "$dir/bad.log"

# CCT_PROFILE=none: no profile, though one for this machine is in the
# path; said once under CCT_LOG=info, and every call on the defaults.
CCT_PROFILE=none CCT_PROFILE_PATH=$dir CCT_LOG=debug "$bin/cclaunch" -n 2 "$bin/cct_example_app" \
  >"$dir/off.log" 2>&1 || fail "the app failed with CCT_PROFILE=none" "$dir/off.log"
grep -q "2 ranks, all results correct" "$dir/off.log" || fail "wrong results" "$dir/off.log"
[ "$(grep -c '^cct: no profile (CCT_PROFILE=none): built-in defaults everywhere$' "$dir/off.log")" \
  -eq 1 ] || fail "CCT_PROFILE=none not said once" "$dir/off.log"
grep -E '^cct: rank [01]: (bcast|allreduce) ' "$dir/off.log" | grep -v '(built-in default)$' &&
  fail "calls above did not run the built-in defaults under CCT_PROFILE=none" "$dir/off.log"
# A profile tuned under MPI (the library first) used by a program without
# MPI: each call runs the rule's fallback where it has one, the default
# where it has none, and CCT_LOG=info says why.
cat >"$dir/mpi_first.yaml" <<'YAML'
schema: 2
tool_version: 0.1.0
date: 2026-11-26T00:00:00Z
machine: {fingerprint: 0123456789abcdef, summary: x, nodes: 1, ranks_per_node: 2, packages: 1,
          numa_nodes: 1, cores: 2, pus: 2, caches: x}
tuning: {}
rules:
  bcast:
    shm:
      - np: [1, max]
        sizes:
          - range: [0, max]
            algorithm: mpi
            fallbacks:
              - {algorithm: knomial, params: {radix: 4}}
  allreduce:
    shm:
      - np: [1, max]
        sizes:
          - range: [0, max]
            algorithm: mpi
YAML
CCT_PROFILE=$dir/mpi_first.yaml CCT_LOG=info "$bin/cclaunch" -n 2 "$bin/cct_example_app" \
  >"$dir/fallback.log" 2>&1 || fail "the app failed on a profile tuned under MPI" "$dir/fallback.log"
grep -q "2 ranks, all results correct" "$dir/fallback.log" || fail "wrong results" "$dir/fallback.log"
why="needs a collective library \\(it runs inside MPI programs only\\)"
for line in "bcast [0-9]+ B: rule mpi cannot run here \($why\), trying the rule's next candidate" \
  "rank 0: bcast [0-9]+ B -> knomial\(radix=4\) \(profile, a fallback\)" \
  "allreduce [0-9]+ B: rule mpi cannot run here \($why\), using the default" \
  "rank 0: allreduce [0-9]+ B -> [a-z_]+ \(built-in default\)"; do
  grep -Eq "^cct: $line\$" "$dir/fallback.log" || fail "CCT_LOG=info does not say: $line" "$dir/fallback.log"
done
if grep -Eq "^cct: rank 0: bcast .*\(built-in default\)$" "$dir/fallback.log"; then
  fail "a bcast ran the default while its rule's fallback could run" "$dir/fallback.log"
fi

# No profile with this machine's fingerprint, one of a machine of its kind
# in the path: the runtime takes it, says once how the machines differ,
# and serves the calls from it; ccinfo says the same. The machine is a
# synthetic topology (CCT_TOPOLOGY), so that no profile a tuning of this
# machine left in build/profiles is of its kind or matches it exactly.
mkdir "$dir/kind"
topology="synthetic:pack:2 core:2 pu:1"  # hwloc's counts per parent
here="pack:2 numa:1 core:4 pu:4"         # its summary: the counts in all
sed -e 's/^  fingerprint: .*/  fingerprint: 0000000000000abc/' \
  -e 's/^  summary: .*/  summary: pack:1 numa:1 core:4 pu:4/' "$yaml" >"$dir/kind/p.yaml"
CCT_PROFILE= CCT_TOPOLOGY=$topology CCT_PROFILE_PATH=$dir/kind CCT_LOG=debug "$bin/cclaunch" -n 2 \
  "$bin/cct_example_app" >"$dir/kind.log" 2>&1 || fail "the app failed on a similar machine's profile" "$dir/kind.log"
grep -q "2 ranks, all results correct" "$dir/kind.log" || fail "wrong results" "$dir/kind.log"
said="^cct: no profile for this machine's fingerprint; profile $dir/kind/p.yaml was tuned on a "
said+="machine of the same kind \(fingerprint 0000000000000abc, pack:1 numa:1 core:4 pu:4\); "
said+="this one is [0-9a-f]{16} \($here\), differing in packages: 1 there, 2 here: its rules are "
said+="used as they were tuned"
[ "$(grep -Ec "$said" "$dir/kind.log")" -eq 1 ] || fail "the similar machine not said once" "$dir/kind.log"
grep -E '^cct: rank [01]: (bcast|allreduce) ' "$dir/kind.log" | grep -v '(profile)$' &&
  fail "calls above were not served by the similar machine's profile" "$dir/kind.log"
CCT_PROFILE= CCT_TOPOLOGY=$topology CCT_PROFILE_PATH=$dir/kind "$bin/ccinfo" >"$dir/kind.info" 2>&1 ||
  fail "ccinfo exited $?" "$dir/kind.info"
for want in "  $dir/kind/p.yaml (a machine of the same kind (fingerprint 0000000000000abc))" \
  "  it differs from this machine in: packages: 1 there, 2 here"; do
  grep -qxF "$want" "$dir/kind.info" || fail "ccinfo does not say: $want" "$dir/kind.info"
done
# Rules the cost model predicted: the runtime says once which and from
# what, and CCT_LOG=info marks the calls they serve.
sed 's/^\( *\)measured_np: 2$/\1predicted: {np: 2, from_np: 1, error: 0.25}/' "$yaml" \
  >"$dir/predicted.yaml"
grep -q "predicted: {np: 2" "$dir/predicted.yaml" || fail "no bucket to mark predicted" "$yaml"
CCT_PROFILE=$dir/predicted.yaml CCT_LOG=info "$bin/cclaunch" -n 2 "$bin/cct_example_app" \
  >"$dir/predicted.log" 2>&1 || fail "the app failed on predicted rules" "$dir/predicted.log"
grep -q "2 ranks, all results correct" "$dir/predicted.log" || fail "wrong results" "$dir/predicted.log"
said="^cct: profile rules predicted by the cost model for 2 ranks from those measured at 1 ranks "
said+="used for 2 ranks on shm \(its median time error where it could be checked: 25%\)"
[ "$(grep -Ec "$said" "$dir/predicted.log")" -eq 1 ] ||
  fail "the predicted rules not said once" "$dir/predicted.log"
grep -Eq '^cct: rank 0: (bcast|allreduce) .*\(profile, predicted by the cost model\)$' \
  "$dir/predicted.log" || fail "no call marked as served by predicted rules" "$dir/predicted.log"
grep -E '^cct: rank 0: (bcast|allreduce) .*\(profile\)$' "$dir/predicted.log" &&
  fail "calls above served by predicted rules were not marked so" "$dir/predicted.log"
echo "PASS: $calls calls served by the tuned profile; its printed rules pasted into CCT_FORCE ran" \
  "as printed ($forced_calls calls); a malformed profile is refused with file:line;" \
  "CCT_PROFILE=none runs the defaults and says so; a profile tuned under MPI runs its fallbacks;" \
  "a similar machine's profile is taken, saying how it differs; predicted rules are said"
