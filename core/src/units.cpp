#include "cct/units.hpp"

#include <cctype>
#include <cstdio>
#include <limits>

namespace cct {

std::string format_bytes(int64_t bytes) {
  static const char suffixes[] = {'k', 'M', 'G'};
  if (bytes == 0) return "0";
  std::string suffix;
  for (char s : suffixes) {
    if (bytes % 1024 != 0) break;
    bytes /= 1024;
    suffix = s;
  }
  return std::to_string(bytes) + suffix;
}

std::optional<int64_t> parse_bytes(const std::string& text) {
  std::size_t i = 0;
  int64_t value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  if (i == 0) return std::nullopt;
  std::string suffix = text.substr(i);
  if (suffix.size() == 3 && (suffix[1] == 'i' || suffix[1] == 'I') &&
      (suffix[2] == 'B' || suffix[2] == 'b'))
    suffix = suffix.substr(0, 1);
  int shift = 0;
  if (suffix == "k" || suffix == "K")
    shift = 10;
  else if (suffix == "m" || suffix == "M")
    shift = 20;
  else if (suffix == "g" || suffix == "G")
    shift = 30;
  else if (!suffix.empty())
    return std::nullopt;
  if (value > (std::numeric_limits<int64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

std::string format_micros(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", seconds * 1e6);
  return text;
}

std::string format_param(const cct_param_desc& param, int64_t value) {
  return param.type == CCT_PARAM_BYTES && value >= 0 ? format_bytes(value) : std::to_string(value);
}

std::string format_choice(const cct_algorithm_desc& alg, std::span<const int64_t> values) {
  std::string text = alg.name;
  for (uint32_t i = 0; i < alg.nparams; ++i)
    text += (i ? "," : "(") + std::string(alg.params[i].name) + "=" +
            format_param(alg.params[i], values[i]);
  return alg.nparams > 0 ? text + ")" : text;
}

}  // namespace cct
