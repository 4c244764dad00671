#!/usr/bin/env bash
# ccbench_device on the tests' host_device transport (host memory posing
# as a device: the figures say nothing of a GPU): it runs on 2 and 3 ranks,
# prints a row per algorithm on device memory and size, with the staged
# path and the copy rate beside it, and refuses a transport that is not a
# device transport, and cuda on a machine without a GPU, saying why.
# usage: ccbench_device.sh <ccbench_device> <libcct_test_host_device.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench=$1
export CCT_PLUGIN_PATH=$2
"$bench" --transport host_device --np 2,3 --min-bytes 4k --max-bytes 16k >"$out" 2>"$err" ||
  fail "exit status $?"
number='[0-9]+\.[0-9]+'
for np in 2 3; do
  for row in "allreduce +$np +16k device_ring" "bcast +$np +4k device_binomial" \
    "reduce +$np +16k device_binomial" "allgather +$np +4k device_ring" \
    "alltoall +$np +16k device_pairwise" "alltoall +$np +16k device_pdbp" \
    "reduce_scatter_block +$np +4k device_ring"; do
    grep -Eq "^$row +$number +$number +$number +$number +$number$" "$out" ||
      fail "no row '$row' with its five figures"
  done
done
status=0
"$bench" --transport shm --np 2 >"$out" 2>"$err" || status=$?
[ "$status" -eq 1 ] && grep -q "^ccbench_device: no device transport 'shm'" "$err" ||
  fail "shm: status $status, or not refused as no device transport"
cuda=$(dirname "$bench")/../lib/cct/libcct_transport_cuda.so
if [ -e "$cuda" ] && [ ! -e /proc/driver/nvidia/version ]; then
  status=0
  "$bench" --transport cuda --np 2 >"$out" 2>"$err" || status=$?
  [ "$status" -eq 1 ] &&
    grep -q "^ccbench_device: the cuda transport cannot run here: no CUDA driver" "$err" ||
    fail "cuda without a GPU: status $status, or not refused saying why"
fi
echo "PASS: ccbench_device prints each algorithm on device memory beside the staged path and" \
  "the copy rate, on 2 and 3 ranks; a host transport refused"
