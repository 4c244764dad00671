// libFuzzer target: the profile reader (a profile is a file anyone may hand
// the runtime through CCT_PROFILE). The reader may refuse an input only
// with cct::Error; a profile it accepts must read back equal from its own
// YAML form (write-and-reread), or `ccautotune` would save profiles it
// cannot reload as they were.
#include "cct/profile.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cct/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  cct::Profile first;
  try {
    first = cct::profile_from_yaml(text, "fuzz.yaml", nullptr);
  } catch (const cct::Error&) {
    return 0;
  }
  const std::string written = cct::profile_to_yaml(first);
  if (cct::profile_from_yaml(written, "reread.yaml", nullptr) != first) {
    std::fprintf(stderr, "profile reread differs from the first read; written as:\n%s\n",
                 written.c_str());
    std::abort();
  }
  return 0;
}
