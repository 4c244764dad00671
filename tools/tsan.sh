#!/usr/bin/env bash
# The interposer under ThreadSanitizer: configures and builds ./build-tsan
# (or $CCT_TSAN_BUILD_DIR) with -DCCT_TSAN=ON, only what the checks need
# (libcct_mpi.so, the plugins, cct_threads_check, cct_pdbp_tsan), runs
# threads_check at MPI_THREAD_MULTIPLE (threads of each rank making, using
# and freeing communicators at once) at 2 and 3 ranks, then PDBP's thread
# pool and buffer policy (pdbp_pool_tsan). Open MPI is not instrumented:
# tests/tsan.supp leaves its own libraries' reports out, every report in
# this project's code fails the run. See docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/phases.sh
source tools/sanitizer_build.sh
build=${CCT_TSAN_BUILD_DIR:-build-tsan}

# Without the CUDA toolkit: nvcc takes no -fsanitize=thread, and the check
# is about the interposer's threads, not devices.
phase build sanitizer_build "$build" "-DCCT_TSAN=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON" \
  cct_mpi cct_plugins cct_threads_check cct_pdbp_tsan

threads() {
  local np tsan
  tsan=$(g++ -print-file-name=libtsan.so)
  export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp halt_on_error=1 exitcode=66 report_signal_unsafe=0 history_size=7"
  for np in 2 3; do
    mpirun --allow-run-as-root --oversubscribe -np "$np" -x TSAN_OPTIONS -x CCT_PROFILE=none \
      -x LD_PRELOAD="$tsan:$PWD/$build/lib/libcct_mpi.so" "$build/bin/cct_threads_check" 3 6
  done
}
phase threads threads
pool() { (cd "$build" && ctest --output-on-failure -R '^pdbp_pool_tsan$'); }
phase pool pool
