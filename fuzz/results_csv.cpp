// libFuzzer target: the tuner's results CSV reader (--resume reads a file
// an interrupted run, or a person, left behind). It may refuse text only
// with cct::Error.
#include "tuner/results_csv.hpp"

#include <cstdint>
#include <string>

#include "cct/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    cct::tuner::parse_results(text, "fuzz.csv");
  } catch (const cct::Error&) {
  }
  return 0;
}
