// ccautotune tuner: a number read from a field of a file the tuner wrote
// (the results, the job times): the whole text, in the C locale.
#pragma once

#include <charconv>
#include <string>

namespace cct::tuner {

template <class T>
bool parse_number(const std::string& text, T* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

}  // namespace cct::tuner
