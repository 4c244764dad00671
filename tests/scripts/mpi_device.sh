#!/usr/bin/env bash
# The interposer (libcct_mpi.so) preloaded under tests/mpi/device_check,
# whose buffers are in the host_device transport's device memory on some
# ranks (host memory at addresses that fault where the host touches them,
# as a GPU's do). Under the MPI library alone the program faults; under the
# interposer, with host_device loaded (CCT_PLUGIN_PATH), every call gives
# what host buffers give, on 1 to 4 ranks: mirrored in host memory where
# the runtime's rules are for host memory, and with CCT_FORCE naming the
# algorithms on device memory, those run where every rank passes device
# memory (CCT_STATS counts their calls), the host rules elsewhere.
# usage: mpi_device.sh <device_check> <libcct_mpi.so> <libcct_test_host_device.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
limit=150
program=$1
interposer=$2
device=$3

mpi() {  # <np> [mpirun options...]: the program's exit status
  local np=$1 status=0
  shift
  timeout --kill-after=10 "$limit" mpirun --allow-run-as-root --oversubscribe -np "$np" "$@" \
    "$program" "$device" >"$out" 2>"$err" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    fail "np $np: hung (killed after $limit s)"
  fi
  return "$status"
}

# The library alone faults on device memory: the program means it.
if mpi 2; then
  fail "the MPI library alone took device memory: the program's device buffers are not device memory"
fi

under_interposer() {  # <label> <np> [mpirun options...]
  local label=$1 np=$2
  shift 2
  mpi "$np" -x LD_PRELOAD="$interposer" -x CCT_PLUGIN_PATH="$device" -x CCT_STATS=1 "$@" ||
    fail "$label: exit status $?"
  grep -Eq "^device_check: $np ranks, [0-9]+ checks, 0 failures on all ranks$" "$out" ||
    fail "$label: no clean summary line"
}

for np in 1 2 3 4; do
  under_interposer "np $np, host rules" "$np" -x CCT_LOG=info
  grep -q "^cct: device buffers go through the host_device transport$" "$err" ||
    fail "np $np: CCT_LOG=info does not say which transport device buffers go through"
  ! grep -q "device_" "$err" || fail "np $np: an algorithm on device memory ran without a rule"
done

rules="allreduce:0-max:device_ring;bcast:0-max:device_binomial;reduce:0-max:device_binomial"
rules+=";allgather:0-max:device_ring;alltoall:0-max:device_pairwise"
rules+=";reduce_scatter_block:0-max:device_ring"
# np 2: ranks of one node copy each other's device memory (IPC, the
# default); np 3: every message staged through host memory, in chunks of
# 256 bytes (CCT_CUDA_CHUNK fixes the chunk over the algorithms').
for np in 2 3; do
  staging=(-x CCT_CUDA_IPC=on)
  [ "$np" -eq 3 ] && staging=(-x CCT_CUDA_IPC=off -x CCT_CUDA_CHUNK=256)
  under_interposer "np $np, device rules" "$np" -x CCT_FORCE="$rules" "${staging[@]}"
  for c in allreduce bcast reduce allgather alltoall reduce_scatter_block; do
    grep -Eq "^world +1 +$c +device_[a-z]+\(chunk=1M\) +[1-9]" "$err" ||
      fail "np $np: no $c call ran on an algorithm on device memory"
  done
done
# The library kept for small allreduces beside a device rule (decided on
# the device buffers as they are, then mirrored for the library), and for
# every bcast (handed over before anything is converted, mirrored first).
kept="allreduce:0-64:mpi;allreduce:64-max:device_ring;bcast:0-max:mpi"
under_interposer "np 3, the library kept" 3 -x CCT_FORCE="$kept"
grep -Eq "^world +1 +allreduce +device_ring\(chunk=1M\) +[1-9]" "$err" ||
  fail "library kept: no allreduce call ran on device_ring"
grep -Eq "^  allreduce: [1-9][0-9]* call\\(s\\): the profile keeps the MPI library's own call for their size" "$err" ||
  fail "library kept: no allreduce call kept on the library"
grep -Eq "^  bcast: [1-9][0-9]* call\\(s\\): the profile keeps the MPI library's own call for every size" "$err" ||
  fail "library kept: no bcast call kept on the library"
echo "PASS: device_check faults under the MPI library alone; under the interposer every call" \
  "gives what host buffers give on 1 to 4 ranks, on the algorithms on device memory where" \
  "CCT_FORCE names them and every rank passes device memory, and on the library where kept"
