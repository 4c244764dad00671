#!/usr/bin/env bash
# ccautotune on device buffers, on the tests' host_device transport (the
# cuda transport's code on host memory posing as a device): on every
# collective that has algorithms on device memory it times those, and every
# host algorithm on host copies of the device buffers (staged, as the
# runtime runs one), and writes rules for the device transport, alone and
# under mpirun (where the MPI library's own call, staged, is a candidate,
# and the second job times the picks again). A collective without an
# algorithm on device memory gets no such rows. Programs on device buffers
# run correctly under the interposer on the profile made. Where the cuda
# transport is built and this machine has no GPU, asking for it is skipped,
# saying why.
# usage: ccautotune_device.sh <ccautotune> <ccprofile> <device_check> <libcct_mpi.so>
#        <libcct_test_host_device.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
ccprofile=$2
program=$3
interposer=$4
device=$5
export CCT_PLUGIN_PATH=$device
tune=(--transports host_device --max-bytes 16k --quick)

"$tuner" --np 2 "${tune[@]}" --collectives allreduce,bcast,barrier --single-job \
  --out "$dir/alone" >"$out" 2>&1 || fail "alone: exit status $?"
csv=$(ls "$dir"/alone/*.csv)
for row in "allreduce,host_device,1,2,[0-9]+,device_ring," "allreduce,host_device,1,2,[0-9]+,ring," \
  "bcast,host_device,1,2,[0-9]+,device_binomial," "bcast,host_device,1,2,[0-9]+,binomial,"; do
  grep -Eq "^$row" "$csv" || fail "alone: no row $row" "$csv"
done
grep -Eq '^[a-z_]+,host_device,.*,confirm,' "$csv" || fail "alone: no confirm row" "$csv"
! grep -q '^barrier,host_device,' "$csv" || fail "alone: barrier (no algorithm on device memory) timed" "$csv"
"$ccprofile" validate "$dir"/alone/*.yaml >"$out" 2>&1 || fail "alone: the profile is not valid"

"$tuner" --launcher mpirun --mpirun-args "-np 2 --oversubscribe" "${tune[@]}" --outside-runs 1 \
  --collectives allreduce,alltoall --out "$dir/mpi" >"$out" 2>&1 || fail "under mpirun: exit status $?"
csv=$(ls "$dir"/mpi/*.csv)
for row in "allreduce,host_device,1,2,[0-9]+,mpi,,[^,]+,[^,]+,[^,]+,[0-9]+,final" \
  "alltoall,host_device,1,2,[0-9]+,device_pairwise," "[a-z]+,host_device,.*,reconfirm,"; do
  grep -Eq "^$row" "$csv" || fail "under mpirun: no row $row" "$csv"
done
profile=$(ls "$dir"/mpi/*.yaml)
"$ccprofile" validate "$profile" >"$out" 2>&1 || fail "under mpirun: the profile is not valid"
grep -q '^    host_device:$' "$profile" || fail "no rules for host_device" "$profile"

timeout --kill-after=10 150 mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$interposer" \
  -x CCT_PLUGIN_PATH -x CCT_PROFILE="$profile" "$program" "$device" >"$out" 2>"$err" ||
  fail "device_check on the profile: exit status $?"
grep -Eq "^device_check: 2 ranks, [0-9]+ checks, 0 failures on all ranks$" "$out" ||
  fail "device_check on the profile: no clean summary line"

if [ -e "$(dirname "$interposer")/cct/libcct_transport_cuda.so" ] &&
  [ ! -e /proc/driver/nvidia/version ]; then
  # Nothing else asked for, nothing measured: status 1, as for any run.
  "$tuner" --np 2 --transports cuda --collectives allreduce --quick --out "$dir/cuda" >"$out" 2>&1 ||
    true
  grep -q "^ccautotune: transport cuda skipped: no CUDA driver" "$out" ||
    fail "cuda without a GPU: not skipped, saying why"
fi
echo "PASS: ccautotune times algorithms on device memory and staged host algorithms on device" \
  "buffers, alone and under mpirun, and device_check runs on the profile it writes"
