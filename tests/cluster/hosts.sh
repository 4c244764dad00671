#!/usr/bin/env bash
# Emulated hosts on one machine, for Open MPI across "nodes" over TCP.
#
# Each host is a network namespace (its own eth0, 10.213.0.<i>/24) and a
# UTS namespace (its own hostname: Open MPI's vader names its segments
# after the hostname in the one shared /dev/shm, so two hosts with one
# name crash). The hosts' veth peers sit on a bridge in a namespace of its
# own, so nothing in the machine's own network namespace changes. An
# optional tbf qdisc limits each host's link. mpirun runs inside host 1
# and starts its daemons on the others through an rsh agent that enters a
# host's namespaces with nsenter.
#
# usage:
#   hosts.sh up OWNER_PID SLOTS... [--mbit M]  make one host per SLOTS
#                                              (ranks it runs); prints DIR
#   hosts.sh mpirun DIR [mpirun args...]       mpirun inside host 1, over
#                                              the bridge only (tcp between
#                                              hosts, vader within)
#   hosts.sh run DIR COMMAND...                COMMAND inside host 1, with
#                                              that mpirun's settings (for
#                                              a program that runs mpirun)
#   hosts.sh down DIR                          remove everything of DIR
#   hosts.sh sweep                             remove the fixtures whose
#                                              owner process is gone
#   hosts.sh can                               exit 0 where namespaces can
#                                              be made here, else say why
# DIR holds: hostfile, rsh (the agent), ns/ (the UTS namespaces' mounts),
# netns (the namespaces' names), owner.
set -euo pipefail
readonly subnet=10.213.0

die() {
  echo "hosts.sh: $*" >&2
  exit 1
}

can() {
  [ "$(id -u)" -eq 0 ] || { echo "not root: network namespaces need CAP_NET_ADMIN"; return 1; }
  for tool in ip nsenter unshare mount; do
    command -v "$tool" >/dev/null || { echo "no $tool"; return 1; }
  done
  local probe="cct-probe-$$"
  ip netns add "$probe" 2>/dev/null || { echo "ip netns add fails here"; return 1; }
  local veth=yes
  ip -n "$probe" link add eth0 type veth peer name p0 2>/dev/null || veth=no
  ip netns del "$probe"
  [ "$veth" = yes ] || { echo "veth pairs cannot be made here"; return 1; }
  unshare --uts --mount true 2>/dev/null || { echo "UTS or mount namespaces cannot be made here"; return 1; }
}

up() {
  local owner=$1
  shift
  local slots=() mbit=""
  while [ $# -gt 0 ]; do
    case $1 in
      --mbit) mbit=$2; shift 2 ;;
      *) slots+=("$1"); shift ;;
    esac
  done
  [ "${#slots[@]}" -ge 1 ] || die "up: no hosts"
  local dir
  dir=/tmp/cct-hosts-$(printf 'cct%x' "$owner")
  [ ! -e "$dir" ] || die "up: $dir exists (a fixture of process $owner)"
  # A subshell, so that set -e holds in it; what a failure midway made goes.
  local status=0
  set +e
  (set -e; make_hosts "$dir" "$owner" "$mbit" "${slots[@]}")
  status=$?
  set -e
  if [ "$status" -ne 0 ]; then
    down "$dir"
    die "up: making the hosts failed (status $status); nothing of them is left"
  fi
  echo "$dir"
}

# make_hosts DIR OWNER MBIT SLOTS...
make_hosts() {
  local dir=$1 owner=$2 mbit=$3
  shift 3
  local tag=${dir##*/cct-hosts-}
  mkdir -p "$dir/ns"
  echo "$owner" >"$dir/owner"
  # A private mount for the UTS namespaces' files (bind mounts of nsfs
  # may not live on a shared mount).
  mount --bind "$dir/ns" "$dir/ns"
  mount --make-private "$dir/ns"
  ip netns add "$tag-br"
  echo "$tag-br" >"$dir/netns"
  ip -n "$tag-br" link add br0 type bridge
  ip -n "$tag-br" link set br0 up
  local i=0
  for s in "$@"; do
    i=$((i + 1))
    local ns=$tag-h$i
    ip netns add "$ns"
    echo "$ns" >>"$dir/netns"
    ip -n "$ns" link add eth0 type veth peer name p$i netns "$tag-br"
    ip -n "$ns" addr add "$subnet.$i/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    ip -n "$tag-br" link set "p$i" master br0 up
    [ -z "$mbit" ] || ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "${mbit}mbit" \
      burst 256kb latency 50ms
    touch "$dir/ns/uts$i"
    unshare --uts="$dir/ns/uts$i" hostname "$tag-h$i"
    echo "$subnet.$i slots=$s" >>"$dir/hostfile"
  done
  cat >"$dir/rsh" <<AGENT
#!/bin/sh
# mpirun's rsh agent for the hosts of $dir: "rsh HOST COMMAND...", HOST
# one of the hostfile's addresses; runs COMMAND in that host's namespaces.
host=\$1
shift
i=\${host##*.}
exec nsenter --net=/run/netns/$tag-h\$i --uts=$dir/ns/uts\$i /bin/sh -c "\$*"
AGENT
  chmod +x "$dir/rsh"
}

# COMMAND in host 1, with Open MPI's settings for these hosts in its
# environment: an mpirun started by COMMAND (ccautotune --launcher mpirun)
# starts its daemons on the others through the agent and keeps to the
# bridge: TCP between hosts, shared memory within one. The hosts share this
# machine's cores, which each host's Open MPI cannot know (a host of 2 slots
# on 2 cores is not oversubscribed to it), so its waiting ranks would spin
# at full speed and starve the ranks they wait for; they yield instead
# (interposer_check on 2 hosts of 2 ranks: 12.7 s spinning, 1.4 s yielding).
run_in_host1() {
  local dir=$1
  shift
  local tag
  tag=$(basename "$dir")
  tag=${tag#cct-hosts-}
  nsenter --net="/run/netns/$tag-h1" --uts="$dir/ns/uts1" \
    env OMPI_MCA_plm_rsh_agent="$dir/rsh" OMPI_MCA_plm_rsh_no_tree_spawn=1 \
    OMPI_MCA_oob_tcp_if_include=$subnet.0/24 OMPI_MCA_btl_tcp_if_include=$subnet.0/24 \
    OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1 OMPI_MCA_mpi_yield_when_idle=1 "$@"
}

run_mpirun() {
  local dir=$1
  shift
  run_in_host1 "$dir" mpirun --allow-run-as-root --hostfile "$dir/hostfile" "$@"
}

down() {
  local dir=$1
  [ -d "$dir" ] || return 0
  if [ -f "$dir/netns" ]; then
    while read -r ns; do
      # Every process still in the namespace (a daemon or rank left by a
      # killed job) goes first: a namespace with processes outlives its name.
      local pids
      pids=$(ip netns pids "$ns" 2>/dev/null || true)
      [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
      ip netns del "$ns" 2>/dev/null || true
    done <"$dir/netns"
  fi
  for f in "$dir"/ns/uts*; do
    [ -e "$f" ] && umount "$f" 2>/dev/null || true
  done
  umount "$dir/ns" 2>/dev/null || true
  # What Open MPI names after a host and leaves when killed: its session
  # directories and vader's segments.
  local tag=${dir##*/cct-hosts-}
  rm -rf /tmp/ompi."$tag"-h* /dev/shm/vader_segment."$tag"-h*
  rm -rf "$dir"
}

sweep() {
  for dir in /tmp/cct-hosts-cct*; do
    [ -d "$dir" ] || continue
    local owner
    owner=$(cat "$dir/owner" 2>/dev/null || echo 0)
    if [ "$owner" -eq 0 ] || ! kill -0 "$owner" 2>/dev/null; then
      echo "hosts.sh: removing $dir (its owner $owner is gone)"
      down "$dir"
    fi
  done
}

case ${1:-} in
  can) can ;;
  up) shift; up "$@" ;;
  mpirun) shift; run_mpirun "$@" ;;
  run) shift; run_in_host1 "$@" ;;
  down) down "$2" ;;
  sweep) sweep ;;
  *) die "usage: hosts.sh can | up OWNER_PID SLOTS... [--mbit M] | mpirun DIR ARGS... | run DIR COMMAND... | down DIR | sweep" ;;
esac
