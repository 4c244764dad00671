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
  const std::string call = std::string(collective_name(q.collective)) + " of " +
                           format_bytes(q.bytes) + " on " + q.transport + ", " +
                           std::to_string(q.np) + " ranks on " + std::to_string(q.nodes) +
                           (q.nodes == 1 ? " node" : " nodes");
  const Selection* s = selector.select(q.collective, static_cast<std::size_t>(q.bytes));
  const AlgorithmEntry* alg =
      s ? s->algorithm
        : registry.find_algorithm(q.collective, collective_info(q.collective).default_algorithm);
  if (s == nullptr) {
    lines.push_back(
        call + ": no usable rule of CCT_FORCE or the profile covers it: the built-in default " +
        collective_info(q.collective).default_algorithm);
  } else {
    std::ostringstream line;
    line << call << ": " << (s->forced ? "CCT_FORCE" : "profile") << " rule "
         << range_text(s->lo, s->hi) << " -> " << format_choice(*s->algorithm->desc, s->params);
    if (s->median_s)
      line << ", measured " << format_micros(*s->median_s) << " us at the start of its range";
    lines.push_back(line.str());
  }
  if (alg == nullptr) {
    lines.push_back("the built-in default is not loaded here: is its plugin on CCT_PLUGIN_PATH?");
    return lines;
  }
  for (const std::string& why : obstacles(*alg, registry, q))
    lines.push_back("but " + std::string(alg->desc->name) + " " + why +
                    (s ? ": such calls take the built-in default " +
                             std::string(collective_info(q.collective).default_algorithm)
                       : ""));
  return lines;
}

}  // namespace cct::tools
