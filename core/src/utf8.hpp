// ccautotune host library: whether text is UTF-8, and YAML's printable text.
//
// A profile is YAML, which is Unicode text; yaml-cpp reads other bytes
// without complaint but writes each as U+FFFD, so a profile rewritten by
// the tools (ccprofile merge, ccautotune --resume) would silently differ
// from the one read. The readers refuse such bytes instead, naming where.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace cct::detail {

// The offset of the first byte that does not belong to a well-formed
// UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF), or nothing when all of text is UTF-8.
std::optional<std::size_t> first_non_utf8(std::string_view text);

// In UTF-8 text, the offset of the first character YAML cannot hold
// (outside its printable set, YAML 1.2 c-printable: a C0 control other
// than tab, line feed and carriage return; DEL; a C1 control other than
// NEL; U+FFFE or U+FFFF), or nothing. yaml-cpp reads them (a NUL too) but
// does not write them back as they were.
std::optional<std::size_t> first_non_printable(std::string_view text);

}  // namespace cct::detail
