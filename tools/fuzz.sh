#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang in ./build-fuzz (or
# $CCT_FUZZ_BUILD_DIR) and runs each for the given seconds (default 60),
# starting from its seed corpus fuzz/corpus/<target>/. Fails if any target
# crashes; crash inputs and logs go to a temporary directory it names.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/phases.sh
source tools/compiler_cache.sh
seconds=${1:-60}
build=${CCT_FUZZ_BUILD_DIR:-build-fuzz}
targets=(profile force fabric results_csv)

# Debian's clang 14, and its runtime libraries with libFuzzer.
phase packages tools/packages.sh clang libclang-rt-14-dev
# -O1 with line tables only (libFuzzer's documentation builds with -O1):
# a quicker build than -O2 -g, and crash reports keep their lines. Only the
# fuzzers and the libraries they link, not the whole tree; without the
# CUDA toolkit, which none of them uses.
configure_and_build() {
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCT_FUZZ=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCCT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build "$build" -j2 --target "${targets[@]/#/fuzz_}"
}
phase build configure_and_build

run_each() {
  local out failed=() t
  out=$(mktemp -d -t cct-fuzz.XXXXXX)
  echo "fuzz: ${seconds}s per target; crash inputs and logs in $out"
  for t in "${targets[@]}"; do
    # New inputs go to a scratch directory: the committed seeds stay as they
    # are. An input that takes over 30 s counts as a crash (a hang).
    mkdir -p "$out/$t-corpus"
    if "$build/bin/fuzz_$t" -max_total_time="$seconds" -timeout=30 -artifact_prefix="$out/$t-" \
      "$out/$t-corpus" "fuzz/corpus/$t" >"$out/$t.log" 2>&1; then
      echo "fuzz: $t: ok, $(grep -o 'Done [0-9]* runs' "$out/$t.log" | tail -n 1)"
    else
      failed+=("$t")
      tail -n 40 "$out/$t.log"
      echo "fuzz: $t: FAILED; log $out/$t.log, input $out/$t-*"
    fi
  done
  [ ${#failed[@]} -eq 0 ] || { echo "fuzz: failed: ${failed[*]}" >&2; return 1; }
}
phase fuzzers run_each
