// ccautotune host library: byte sizes as people write them ("64k", "4M").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "cct/abi/algorithm.h"

namespace cct {

// 65536 -> "64k", 4194304 -> "4M", 1000 -> "1000"; exact (no rounding).
std::string format_bytes(int64_t bytes);
// "64k" / "64K" / "64KiB" -> 65536, "4M" -> 4194304, "17" -> 17;
// nullopt for anything else (negative, junk, overflow).
std::optional<int64_t> parse_bytes(const std::string& text);

// A time as every human-readable output of the project writes it: in
// microseconds, two decimals (1.25e-6 -> "1.25"); labels say "us".
std::string format_micros(double seconds);

// A parameter value as people write it: sizes of a CCT_PARAM_BYTES
// parameter like format_bytes ("64k"), anything else in decimal.
std::string format_param(const cct_param_desc& param, int64_t value);

// An algorithm with its parameter values as CCT_STATS, logs and CCT_FORCE
// write it: "knomial(radix=8)", "two_level(level=-1,chunk=8k)"; the plain
// name for an algorithm without parameters. values: one per parameter, in
// the algorithm's table order.
std::string format_choice(const cct_algorithm_desc& alg, std::span<const int64_t> values);

}  // namespace cct
