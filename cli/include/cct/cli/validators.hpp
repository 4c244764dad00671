// The command lines' CLI11 validators (ccautotune and the tools): what
// their options accept and what they say when a value is refused, alike
// in every program.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "cct/units.hpp"

namespace cct::cli {

// Sizes as profiles write them, through cct::parse_bytes: a transform for
// an integer option ("64k" becomes "65536") whose refusal names the forms
// it accepts.
inline CLI::Validator byte_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<int64_t> bytes = cct::parse_bytes(text);
        if (!bytes)
          return "not a size: '" + text +
                 "' (sizes are bytes, or with a binary suffix: 4096, 64k, 4M, 1G, 64KiB)";
        text = std::to_string(*bytes);
        return "";
      },
      "");
}

// A number above 0. CLI11's PositiveNumber refuses with its range, up to
// 1.8e308 written out in full.
inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (CLI::detail::lexical_cast(text, value) && value > 0) return "";
        return "expected a number above 0, not '" + text + "'";
      },
      "");
}

}  // namespace cct::cli
