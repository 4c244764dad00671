// Checks shared by the profile reader, the CCT_FORCE parser and the
// selector: does the registry know an algorithm, does it declare a
// parameter, is a value acceptable; and the "64k" / "max" size notation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cct/registry.hpp"

namespace cct::detail {

// The algorithm `name` of collective c, or nullptr with *why saying which
// algorithms the collective does have.
const AlgorithmEntry* find_algorithm_or_why(const Registry& registry, cct_collective c,
                                            const std::string& name, std::string* why);
// Why `name` = `value` is not a parameter setting `alg` accepts, or "".
std::string param_problem(const AlgorithmEntry& alg, const std::string& name, int64_t value);
// Why the rule's algorithm or one of its parameters is not acceptable, or "".
std::string rule_problem(const Registry& registry, cct_collective c, const std::string& algorithm,
                         const std::map<std::string, int64_t>& params);

// Sizes as profiles and CCT_FORCE write them: "0", "4k", "1M", "max".
std::string format_size(int64_t bytes);
std::optional<int64_t> parse_size(const std::string& text);
// A parameter value: a plain (possibly negative) integer or a size ("64k").
std::optional<int64_t> parse_param_value(const std::string& text);

}  // namespace cct::detail
