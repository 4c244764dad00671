# Sourced by the tests that run on emulated hosts (hosts.sh, given as
# $hosts): where the hosts cannot be made here the test says why and is
# skipped (status 77); fixtures of runs that were killed are swept; this
# test's hosts and files ($dir, $out, $err, $work) go on any exit.
# Gives: hosts_up SLOTS..., hosts_down, fail MESSAGE [FILE...] (the files
# shown, $out and $err when none is named).
if ! why=$("$hosts" can); then
  echo "SKIP: emulated hosts cannot be made here: $why"
  exit 77
fi
"$hosts" sweep
dir=""
out=$(mktemp)
err=$(mktemp)
work=$(mktemp -d)
cleanup() {
  [ -z "$dir" ] || "$hosts" down "$dir"
  rm -rf "$out" "$err" "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $1"
  shift
  if [ $# -eq 0 ]; then set -- "$out" "$err"; fi
  cat "$@"
  exit 1
}

# Sets $dir (the hosts' folder) and $np (the ranks the hostfile holds).
hosts_up() {
  dir=$("$hosts" up $$ "$@")
  np=$(awk '{sum += substr($2, 7)} END {print sum}' "$dir/hostfile")
}

# Removes the hosts and fails if a namespace of theirs is left.
hosts_down() {
  local tag=${dir##*/cct-hosts-}
  "$hosts" down "$dir"
  dir=""
  ! ip netns list | grep -q "^$tag-" || fail "namespaces left: $(ip netns list | grep "^$tag-")"
}
