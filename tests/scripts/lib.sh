# Sourced by the test scripts here, right after their set line, as
#   source "$(dirname "$0")/lib.sh"
# (and by tests/cluster/fixture.sh, which the tests on emulated hosts
# source instead). Gives:
#   $dir      a fresh scratch directory, removed on any exit;
#   $out $err the files $dir/out and $dir/err, made empty, for one
#             program's stdout and stderr;
#   at_exit COMMAND
#             runs COMMAND (a string, evaluated at exit, so it sees the
#             variables as they are then) on any exit, before $dir goes,
#             in the order registered; the script's exit status stays;
#   profile_header SCHEMA
#             prints a profile's lines up to its rules (a 2-core machine of
#             another fingerprint, tuned up to 4 MiB) ending "rules:", for
#             a test's profile of a few rules;
#   fail MESSAGE [FILE...]
#             prints "FAIL: MESSAGE", then each FILE that exists ($out and
#             $err, those not empty, when none is named), and exits 1.
#   stats_loop BENCH INTERPOSER CALLS COLLECTIVE RULE [mpirun options...]
#             runs osu_style_bench BENCH's loop of CALLS 8-byte calls of
#             COLLECTIVE on 2 ranks, INTERPOSER preloaded with CCT_STATS=1
#             and CCT_FORCE=RULE: its stdout in $out, its stderr (the
#             CCT_STATS tables) in $err; fails on an exit status not 0.
# shellcheck shell=bash
dir=$(mktemp -d -t cct-test.XXXXXX) || { echo "FAIL: no scratch directory"; exit 1; }
cct_at_exit=()
at_exit() {
  cct_at_exit+=("$1")
}
cct_exit() {
  local cct_status=$? cct_command
  set +eu  # the script is ending: every command here gets its turn
  for cct_command in ${cct_at_exit[@]+"${cct_at_exit[@]}"}; do
    eval "$cct_command"
  done
  rm -rf "$dir"
  exit "$cct_status"
}
trap cct_exit EXIT
out=$dir/out
err=$dir/err
: >"$out"
: >"$err"

fail() {
  echo "FAIL: $1"
  shift
  local file
  if [ $# -eq 0 ]; then
    for file in "$out" "$err"; do
      if [ -s "$file" ]; then cat "$file"; fi
    done
  else
    for file in "$@"; do
      if [ -e "$file" ]; then cat "$file"; fi
    done
  fi
  exit 1
}

profile_header() {
  printf '%s\n' "schema: $1" 'tool_version: 0.1.0' 'date: 2026-12-01T00:00:00Z' 'machine:' \
    '  fingerprint: 0123456789abcdef' '  summary: pack:1 core:2 pu:2' '  nodes: 1' \
    '  ranks_per_node: 2' '  packages: 1' '  numa_nodes: 1' '  cores: 2' '  pus: 2' \
    '  caches: L2 1M x2' 'tuning:' '  max_bytes: 4M' 'rules:'
}

stats_loop() {
  local bench=$1 interposer=$2 calls=$3 c=$4 rule=$5
  shift 5
  mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
    -x CCT_FORCE="$rule" "$@" "$bench" loop "$c" 8 "$calls" >"$out" 2>"$err" ||
    fail "$c: exit status $?" "$err"
}
