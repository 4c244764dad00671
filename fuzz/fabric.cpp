// libFuzzer target: the RapidIO simulator's fabric file reader. It may
// refuse a file only with std::runtime_error; a fabric it accepts must read
// back from its canonical text (describe_fabric) as the same fabric.
#include "rapidio_sim/engine/fabric.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string described;
  try {
    described = cct::rio::describe_fabric(cct::rio::fabric_from_yaml(text, "fuzz.yaml"));
  } catch (const std::runtime_error&) {
    return 0;
  }
  const std::string reread =
      cct::rio::describe_fabric(cct::rio::fabric_from_yaml(described, "reread.yaml"));
  if (reread != described) {
    std::fprintf(stderr, "fabric reread differs:\n%s\nagainst:\n%s\n", described.c_str(),
                 reread.c_str());
    std::abort();
  }
  return 0;
}
