#include "profile_explain.hpp"

#include <bit>
#include <iomanip>
#include <sstream>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/runtime.hpp"
#include "cct/units.hpp"

namespace cct::tools {
namespace {

std::string range_text(int64_t lo, int64_t hi) {
  return "[" + format_bytes(lo) + ", " + (hi == kMaxBytes ? "max" : format_bytes(hi)) + ")";
}

// What stops `alg` from running on this shape, as far as the shape alone
// says (the runtime checks each call too, and takes the default then).
std::vector<std::string> obstacles(const AlgorithmEntry& alg, const Registry& registry,
                                   const ExplainQuery& q) {
  const cct_algorithm_desc& d = *alg.desc;
  std::vector<std::string> out;
  if (const TransportEntry* t = registry.find_transport(q.transport)) {
    // An MPI program also grants the library's own call (the `mpi` algorithm).
    const uint64_t missing = d.required_caps & ~(t->desc->capabilities | CCT_CAP_LIBRARY);
    if (missing != 0)
      out.push_back("needs " + capability_names(missing) + ", which " + q.transport +
                    " does not grant");
    if ((d.required_caps & CCT_CAP_LIBRARY) != 0)
      out.push_back("runs only inside an MPI program (the MPI library's own call)");
  } else {
    out.push_back("transport " + q.transport + " is not loaded here");
  }
  if (q.np < d.min_ranks || (d.max_ranks > 0 && q.np > d.max_ranks))
    out.push_back("runs on " + std::to_string(d.min_ranks) + ".." +
                  (d.max_ranks ? std::to_string(d.max_ranks) : "any") + " ranks, not " +
                  std::to_string(q.np));
  if ((d.limits & CCT_LIMIT_POW2_ONLY) && !std::has_single_bit(static_cast<unsigned>(q.np)))
    out.push_back("needs a power-of-two rank count, not " + std::to_string(q.np));
  return out;
}

}  // namespace

std::vector<std::string> explain(const Profile& profile, const std::vector<ForceRule>& force,
                                 const Registry& registry, const ExplainQuery& q) {
  std::vector<std::string> lines;
  const Selector selector(profile, force, registry, q.transport, q.np, q.nodes);
  for (const std::string& w : selector.warnings()) lines.push_back("note: " + w);
  const std::string type =
      q.dtype == CCT_DATATYPE_COUNT ? "" : std::string(" ") + datatype_name(q.dtype);
  const std::string root = q.root == 0 ? "" : " at root " + std::to_string(q.root);
  const std::string call = std::string(collective_name(q.collective)) + " of " +
                           format_bytes(q.bytes) + type + root + " on " + q.transport + ", " +
                           std::to_string(q.np) + " ranks on " + std::to_string(q.nodes) +
                           (q.nodes == 1 ? " node" : " nodes");
  const char* default_name = collective_info(q.collective).default_algorithm;
  // What a call that no rule runs takes (Runtime::Options::library_without_rule).
  const std::string no_rule_takes =
      std::string(q.profile_off ? "" : "the MPI library's own call in an MPI program, else ") +
      "the built-in default " + default_name;
  const std::span<const Selection> rule =
      selector.candidates(q.collective, static_cast<std::size_t>(q.bytes), q.dtype, q.root);
  if (rule.empty()) {
    lines.push_back(call +
                    ": no usable rule of CCT_FORCE or the profile covers it: " + no_rule_takes);
    const AlgorithmEntry* alg = registry.find_algorithm(q.collective, default_name);
    if (alg == nullptr)
      lines.push_back("the built-in default is not loaded here: is its plugin on CCT_PLUGIN_PATH?");
    else
      for (const std::string& why : obstacles(*alg, registry, q))
        lines.push_back("but " + std::string(alg->desc->name) + " " + why);
    return lines;
  }
  const Selection& first = rule.front();
  std::ostringstream line;
  line << call << ": " << (first.forced ? "CCT_FORCE" : "profile") << " rule "
       << range_text(first.lo, first.hi) << " -> "
       << format_choice(*first.algorithm->desc, first.params);
  if (first.median_s)
    line << ", measured " << format_micros(*first.median_s) << " us at the start of its range";
  lines.push_back(line.str());
  if (rule.size() > 1) {
    std::ostringstream fallbacks;
    fallbacks << "where it cannot run a call, the rule's fallbacks in order:";
    for (const Selection& s : rule.subspan(1)) {
      fallbacks << " " << format_choice(*s.algorithm->desc, s.params);
      if (s.median_s) fallbacks << " (measured " << format_micros(*s.median_s) << " us)";
    }
    lines.push_back(fallbacks.str());
  }
  for (std::size_t i = 0; i < rule.size(); ++i) {
    const std::string next =
        i + 1 < rule.size()
            ? "the rule's next candidate " + std::string(rule[i + 1].algorithm->desc->name)
            : no_rule_takes;
    for (const std::string& why : obstacles(*rule[i].algorithm, registry, q))
      lines.push_back("but " + std::string(rule[i].algorithm->desc->name) + " " + why +
                      ": such calls take " + next);
  }
  return lines;
}

}  // namespace cct::tools
