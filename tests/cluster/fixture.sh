# Sourced by the tests that run on emulated hosts (hosts.sh, given as
# $hosts); sources tests/scripts/lib.sh, whose $dir, $out, $err, at_exit
# and fail it gives as well. Where the hosts cannot be made here the test
# says why and is skipped (status 77); fixtures of runs that were killed
# are swept; this test's hosts and files ($dir, with $out, $err and $work
# in it) go on any exit.
# Gives: $work (a directory), hosts_up SLOTS..., hosts_down.
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
if ! why=$("$hosts" can); then
  echo "SKIP: emulated hosts cannot be made here: $why"
  exit 77
fi
"$hosts" sweep
hostdir=""
work=$dir/work
mkdir "$work"
# shellcheck disable=SC2016 # expanded at exit
at_exit '[ -z "$hostdir" ] || "$hosts" down "$hostdir"'

# Sets $hostdir (the hosts' folder) and $np (the ranks the hostfile holds).
hosts_up() {
  hostdir=$("$hosts" up $$ "$@")
  np=$(awk '{sum += substr($2, 7)} END {print sum}' "$hostdir/hostfile")
}

# Removes the hosts and fails if a namespace of theirs is left.
hosts_down() {
  local tag=${hostdir##*/cct-hosts-}
  "$hosts" down "$hostdir"
  hostdir=""
  ! ip netns list | grep -q "^$tag-" || fail "namespaces left: $(ip netns list | grep "^$tag-")"
}
