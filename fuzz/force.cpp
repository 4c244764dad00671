// libFuzzer target: the CCT_FORCE parser (an environment variable, typed by
// hand). It may refuse text only with cct::Error; given a list for skipped
// rules it must never throw, and on text the strict parse accepts it must
// give the same rules and skip none.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cct/error.hpp"
#include "cct/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<std::vector<cct::ForceRule>> strict;
  try {
    strict = cct::parse_force(text, nullptr);
  } catch (const cct::Error&) {
  }
  std::vector<std::string> skipped;
  const std::vector<cct::ForceRule> lenient = cct::parse_force(text, nullptr, &skipped);
  if (strict && (*strict != lenient || !skipped.empty())) std::abort();
  return 0;
}
