// The profile model's rules that do not depend on YAML: what makes an
// algorithm name and parameter values valid.
#include <charconv>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/units.hpp"
#include "profile_check.hpp"

namespace cct {
namespace {

std::string candidates_problem(const cct_param_desc& param, int64_t value) {
  std::string list;
  for (uint32_t i = 0; i < param.ncandidates; ++i) {
    if (param.candidates[i] == value) return "";
    list += (i ? ", " : "") + format_param(param, param.candidates[i]);
  }
  return format_param(param, value) + " is not one of " + list;
}

// Whether value is lo combined with step some number of times (the values
// the tuner would try), without overflowing.
bool on_step(const cct_param_desc& param, int64_t value) {
  if (param.step_kind == CCT_STEP_ADD)
    return param.step <= 0 || (value - param.lo) % param.step == 0;
  if (param.step < 2 || param.lo <= 0) return value == param.lo;
  int64_t v = param.lo;
  while (v < value && v <= param.hi / param.step) v *= param.step;
  return v == value;
}

std::string range_problem(const cct_param_desc& param, int64_t value) {
  if (value < param.lo || value > param.hi)
    return format_param(param, value) + " is outside " + format_param(param, param.lo) + ".." +
           format_param(param, param.hi);
  if (!on_step(param, value))
    return format_param(param, value) + " is not on the range's steps (" +
           (param.step_kind == CCT_STEP_MUL ? "times " : "plus ") + std::to_string(param.step) +
           " from " + format_param(param, param.lo) + ")";
  return "";
}

const cct_param_desc* find_param(const cct_algorithm_desc& desc, const std::string& name) {
  for (uint32_t i = 0; i < desc.nparams; ++i)
    if (name == desc.params[i].name) return &desc.params[i];
  return nullptr;
}

}  // namespace

std::string param_value_problem(const cct_param_desc& param, int64_t value) {
  return param.ncandidates > 0 ? candidates_problem(param, value) : range_problem(param, value);
}

namespace detail {

const AlgorithmEntry* find_algorithm_or_why(const Registry& registry, cct_collective c,
                                            const std::string& name, std::string* why) {
  if (const AlgorithmEntry* entry = registry.find_algorithm(c, name)) return entry;
  std::string known;
  for (const auto& a : registry.algorithms())
    if (a.desc->collective == c) known += (known.empty() ? "" : ", ") + std::string(a.desc->name);
  *why = std::string("unknown ") + collective_name(c) + " algorithm '" + name +
         "' (registered: " + (known.empty() ? "none" : known) + "; plugins " + registry.searched() +
         ")";
  return nullptr;
}

std::string param_problem(const AlgorithmEntry& alg, const std::string& name, int64_t value) {
  const std::string where =
      std::string(collective_name(alg.desc->collective)) + "/" + alg.desc->name;
  const cct_param_desc* param = find_param(*alg.desc, name);
  if (param == nullptr) {
    std::string known;
    for (uint32_t i = 0; i < alg.desc->nparams; ++i)
      known += (i ? ", " : "") + std::string(alg.desc->params[i].name);
    return where + " has no parameter '" + name + "' (" +
           (known.empty() ? "it has none" : "parameters: " + known) + ")";
  }
  const std::string problem = param_value_problem(*param, value);
  return problem.empty() ? "" : where + " parameter " + name + ": " + problem;
}

std::string rule_problem(const Registry& registry, cct_collective c, const std::string& algorithm,
                         const std::map<std::string, int64_t>& params) {
  std::string why;
  const AlgorithmEntry* alg = find_algorithm_or_why(registry, c, algorithm, &why);
  if (alg == nullptr) return why;
  for (const auto& [name, value] : params)
    if (std::string problem = param_problem(*alg, name, value); !problem.empty()) return problem;
  return "";
}

std::string format_size(int64_t bytes) {
  return bytes == kMaxBytes ? "max" : format_bytes(bytes);
}

std::optional<int64_t> parse_size(const std::string& text) {
  if (text == "max") return kMaxBytes;
  return parse_bytes(text);
}

std::optional<int64_t> parse_param_value(const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc() && ptr == end) return value;
  return parse_bytes(text);
}

}  // namespace detail
namespace {

std::string choice_text(cct_collective c, const std::string& algorithm,
                        const std::map<std::string, int64_t>& params, const Registry& registry) {
  const AlgorithmEntry* alg = registry.find_algorithm(c, algorithm);
  if (alg != nullptr && detail::rule_problem(registry, c, algorithm, params).empty())
    return format_choice(*alg->desc, alg->param_values(params));
  std::string text;
  for (const auto& [name, value] : params)
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text.empty() ? algorithm : algorithm + "(" + text + ")";
}

}  // namespace

std::string format_rule_choice(cct_collective c, const SizeRule& rule, const Registry& registry) {
  return choice_text(c, rule.algorithm, rule.params, registry);
}

std::string format_rule_choice(cct_collective c, const Fallback& fallback,
                               const Registry& registry) {
  return choice_text(c, fallback.algorithm, fallback.params, registry);
}

std::string datatypes_text(const std::vector<cct_datatype>& types) {
  std::string out;
  for (cct_datatype t : types) out += (out.empty() ? "" : ", ") + std::string(datatype_name(t));
  return out;
}

std::string served_calls_text(const RankBucket& b) {
  return b.nonzero_roots ? kNonzeroRootsText : datatypes_text(b.datatypes);
}

std::vector<std::string> disabled_rules(const Profile& profile) {
  std::vector<std::string> out;
  for (const auto& [collective, transports] : profile.rules)
    for (const auto& [transport, buckets] : transports)
      for (const RankBucket& b : buckets)
        for (const SizeRule& r : b.sizes) {
          if (!r.disabled.empty()) out.push_back(r.disabled);
          for (const Fallback& f : r.fallbacks)
            if (!f.disabled.empty()) out.push_back(f.disabled);
        }
  return out;
}

}  // namespace cct
