#!/usr/bin/env bash
# Every tool's command line (CLI11) keeps one contract: --version prints
# "<tool> <version>"; an unknown option is refused with a non-zero status
# (2 where the tool documents it) in two lines, what is wrong and where the
# usage is, never the whole help; a size that cct::parse_bytes refuses is
# refused with the forms it accepts; --opt=value reads as --opt value;
# --help still explains. ccbench runs under mpirun and only rank 0 speaks.
# usage: tool_command_lines.sh <bin dir> <version>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
bin=$1 version=$2
mpi() { mpirun --allow-run-as-root --oversubscribe -np 2 "$@"; }

# <name> <want status, or "mpi": non-zero, under mpirun> <command...>: a
# refusal in two lines (under mpirun, two of the tool's beside mpirun's).
refused() {
  local name=$1 want=$2 status=0
  shift 2
  "$@" >"$dir/out" 2>&1 || status=$?
  if [ "$want" = mpi ]; then
    [ "$status" -ne 0 ] || fail "$*: status 0" "$dir/out"
  else
    [ "$status" -eq "$want" ] || fail "$*: status $status, want $want" "$dir/out"
    [ "$(wc -l <"$dir/out")" -eq 2 ] || fail "$*: not a two-line refusal" "$dir/out"
  fi
  [ "$(grep -c "^$name: " "$dir/out")" -eq 1 ] || fail "$*: not one '$name: ' line" "$dir/out"
  [ "$(grep -cx "run '$name --help' for usage" "$dir/out")" -eq 1 ] ||
    fail "$*: not one pointer to --help" "$dir/out"
  ! grep -q -- "--version" "$dir/out" || fail "$*: the help was printed" "$dir/out"
}

for tool in ccautotune ccinfo cclaunch ccprofile ccbench_device; do
  printed=$("$bin/$tool" --version) || fail "$tool --version exited $?"
  [ "$printed" = "$tool $version" ] || fail "$tool --version printed '$printed'"
  "$bin/$tool" --help >"$dir/help" || fail "$tool --help exited $?"
  grep -q -- "--version" "$dir/help" || fail "$tool --help lists no --version" "$dir/help"
done
printed=$(mpi "$bin/ccbench" --version) || fail "ccbench --version exited $?"
[ "$printed" = "ccbench $version" ] || fail "ccbench --version under 2 ranks printed '$printed'"

for command in ccautotune ccinfo "ccprofile show p.yaml" "cclaunch -n 1 true" ccbench_device; do
  tool=${command%% *}
  refused "$tool" 2 "$bin/$tool" --bogus ${command#"$tool"}
  grep -q -- "--bogus" "$dir/out" || fail "$tool --bogus: the option is not named" "$dir/out"
done
refused cclaunch 2 "$bin/cclaunch" -n 1
refused ccbench mpi mpi "$bin/ccbench" --bogus

forms='4096, 64k, 4M, 1G'
refused ccautotune 2 "$bin/ccautotune" --max-bytes=4MB
grep -qF -- "--max-bytes: not a size: '4MB'" "$dir/out" && grep -qF "$forms" "$dir/out" ||
  fail "ccautotune --max-bytes=4MB: the accepted forms are not named" "$dir/out"
refused ccautotune 2 "$bin/ccautotune" --min-bytes lots
grep -qF "$forms" "$dir/out" || fail "--min-bytes lots: no accepted forms" "$dir/out"
refused ccbench mpi mpi "$bin/ccbench" --min-bytes 1x
grep -qF "$forms" "$dir/out" || fail "ccbench --min-bytes 1x: no accepted forms" "$dir/out"
refused ccbench_device 2 "$bin/ccbench_device" --max-bytes 2X
grep -qF "$forms" "$dir/out" || fail "ccbench_device --max-bytes 2X: no accepted forms" "$dir/out"
refused ccautotune 2 "$bin/ccautotune" --budget abc
refused ccautotune 2 "$bin/ccautotune" --shortlist -1
grep -qF -- "--shortlist: -1 is outside 0..1000 candidates" "$dir/out" ||
  fail "--shortlist -1: the range is not named" "$dir/out"
refused ccautotune 2 "$bin/ccautotune" --collectives=bcast,nosuch
grep -qF "unknown collective 'nosuch'" "$dir/out" || fail "--collectives=: not checked" "$dir/out"
refused ccautotune 2 "$bin/ccautotune" --datatypes float,half
grep -qF -- "--datatypes: unknown element type 'half'" "$dir/out" || fail "--datatypes: not checked" "$dir/out"
refused ccautotune 2 "$bin/ccautotune" --datatypes double,int32
grep -qF -- "--datatypes: int32 is what every reduction is measured in" "$dir/out" ||
  fail "--datatypes int32: not refused as the reference" "$dir/out"
refused ccautotune 2 "$bin/ccautotune" --roots first
grep -qF -- "--roots: first not in {last,none}" "$dir/out" || fail "--roots: not checked" "$dir/out"
refused ccautotune 2 "$bin/ccautotune" --mpirun-args="-np 2"
grep -qF -- "--hostfile and --mpirun-args go with --launcher mpirun" "$dir/out" ||
  fail "--mpirun-args= without --launcher" "$dir/out"

"$bin/ccautotune" --help >"$dir/help"
for want in "--max-bytes SIZE" "--quick" "--ranks-per-node" "--launcher" "successive halving" \
  "--shortlist K" "--plan" "--datatypes a,b" "--roots last|none" "--from-results FILE" \
  "Exit status: 0, 1 when a job failed"; do
  grep -qF -- "$want" "$dir/help" || fail "ccautotune --help lacks '$want'" "$dir/help"
done
echo "PASS: --version, short refusals and size forms in ccautotune, ccinfo, cclaunch, ccprofile," \
  "ccbench, ccbench_device"
