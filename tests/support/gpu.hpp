// The tests that need a GPU: they run where CUDA sees a device and are
// skipped elsewhere, saying why (ctest lists them as skipped: see
// tests/CMakeLists.txt, SKIP_REGULAR_EXPRESSION).
#pragma once

#include <string>

namespace cct::test {

// "" where this build has CUDA and a device is present, else the reason
// there is none ("not built with CUDA ...", "no CUDA driver (...)"). Asked
// in a child process, so that this one has not initialised CUDA when it
// forks ranks (a forked child cannot use its parent's CUDA context).
const std::string& gpu_absent();

// Where there is no GPU: prints "cct-test-skipped: no GPU: <reason>" and
// returns true; the test returns at once.
bool skip_without_gpu();

}  // namespace cct::test
