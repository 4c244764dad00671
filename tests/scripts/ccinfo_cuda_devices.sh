#!/usr/bin/env bash
# ccinfo's CUDA device section, in text and JSON, says what this build and
# machine have: built without a toolkit, that it was not built with CUDA;
# built with one on a machine without NVIDIA's driver (no /dev/nvidiactl),
# "no CUDA driver" with the runtime's own error; with a driver, either each
# device with its compute capability, memory and peer access, or why there
# is none; and what the cuda transport does here (not built, refuses with
# that reason, or serves). Never silent, never a crash.
# usage: ccinfo_cuda_devices.sh <ccinfo> <cuda|none: whether the build found a toolkit>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ccinfo=$1 built=$2
"$ccinfo" >"$dir/text" 2>&1 || true  # exits 1 where a plugin is refused; not this test's concern
"$ccinfo" --json >"$dir/json" 2>/dev/null || true
section=$(sed -n '/^CUDA devices/,/^$/p' "$dir/text")
[ -n "$section" ] || fail "no CUDA devices section" "$dir/text"
python3 - "$dir/json" "$built" <<'PY' || fail "ccinfo --json's cuda section" "$dir/json"
import json, sys
cuda = json.load(open(sys.argv[1]))["cuda"]
built = sys.argv[2] == "cuda"
assert bool(cuda["absent"]) != bool(cuda["devices"]), f"devices and a reason, or neither: {cuda}"
assert bool(cuda["runtime_version"]) == built, cuda
state = cuda["transport"]
if not built:
    assert state == cuda["absent"], state
elif cuda["absent"]:
    assert state == "refuses here: " + cuda["absent"], state
else:
    assert state.startswith("serves device buffers"), state
for d in cuda["devices"]:
    assert d["name"] and d["memory_bytes"] > 0 and d["compute_capability"] != "0.0", d
    assert all(p != d["index"] for p in d["peers"]), d
PY
if [ "$built" = none ]; then
  grep -q '^  none: not built with CUDA: no CUDA toolkit was found' <<<"$section" &&
    grep -q '^  transport cuda: not built with CUDA' <<<"$section" ||
    fail "a build without a toolkit does not say so" "$dir/text"
  echo "PASS: built without CUDA, and says so"
elif [ ! -e /dev/nvidiactl ]; then
  grep -Eq '^  none: no CUDA driver \(cuda[A-Za-z]+: ' <<<"$section" &&
    grep -Eq '^  transport cuda: refuses here: no CUDA driver' <<<"$section" ||
    fail "no driver here, and ccinfo does not say so" "$dir/text"
  echo "PASS: no CUDA driver, and says so"
elif grep -q '^  none: ' <<<"$section"; then
  echo "PASS: a driver but no usable device: $(grep '^  none: ' <<<"$section")"
else
  grep -q '^    peer access to: ' <<<"$section" || fail "a device without its peer access" "$dir/text"
  echo "PASS: $(grep -c '^    peer access to: ' <<<"$section") device(s) listed"
fi
