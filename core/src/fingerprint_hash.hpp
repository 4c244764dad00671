// ccautotune host library: the hash that names machines and simulated
// platforms in profiles (16 hex digits of a 64-bit FNV-1a).
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace cct {

inline std::string fingerprint_of(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016" PRIx64, hash);
  return hex;
}

}  // namespace cct
