#include "utf8.hpp"

namespace cct::detail {
namespace {

// The length of the well-formed sequence at the start of s, or 0. The
// second byte's range excludes overlong forms (after 0xE0 and 0xF0),
// surrogates (after 0xED) and code points above U+10FFFF (after 0xF4).
std::size_t sequence_length(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  else
    return 0;
  if (lead == 0xE0) lo = 0xA0;
  if (lead == 0xED) hi = 0x9F;
  if (lead == 0xF0) lo = 0x90;
  if (lead == 0xF4) hi = 0x8F;
  if (s.size() < length || byte(1) < lo || byte(1) > hi) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  return length;
}

}  // namespace

std::optional<std::size_t> first_non_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = sequence_length(text.substr(at));
    if (length == 0) return at;
    at += length;
  }
  return std::nullopt;
}

std::optional<std::size_t> first_non_printable(std::string_view text) {
  const auto byte = [&](std::size_t i) {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
  };
  for (std::size_t at = 0; at < text.size(); ++at) {
    const unsigned char b = byte(at);
    const bool c0 = b < 0x20 && b != '\t' && b != '\n' && b != '\r';
    const bool c1 =
        b == 0xC2 && byte(at + 1) >= 0x80 && byte(at + 1) <= 0x9F && byte(at + 1) != 0x85;
    const bool nonchar = b == 0xEF && byte(at + 1) == 0xBF && byte(at + 2) >= 0xBE;
    if (c0 || b == 0x7F || c1 || nonchar) return at;
  }
  return std::nullopt;
}

}  // namespace cct::detail
