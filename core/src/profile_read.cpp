// The YAML reader: parses a profile with yaml-cpp and validates every field,
// so that the runtime can trust what it loaded. Every complaint is
// "<file>:<line>: <what>", the line being the node's (1-based).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "profile_check.hpp"
#include "utf8.hpp"

namespace cct {
namespace {

using Keys = std::initializer_list<const char*>;

class Reader {
 public:
  Reader(std::string source, const Registry* registry, RuleProblems rule_problems)
      : source_(std::move(source)), registry_(registry), rule_problems_(rule_problems) {}

  Profile read(const YAML::Node& root);

 private:
  // yaml-cpp counts lines from 0; a node without a position (the empty
  // document) is blamed on line 1.
  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    throw Error(source_ + ":" + std::to_string(std::max(at.Mark().line, 0) + 1) + ": " + what,
                CCT_ERR_INVALID_ARG);
  }

  void check_keys(const YAML::Node& map, const std::string& ctx, Keys required,
                  Keys optional) const;
  void expect_map(const YAML::Node& node, const std::string& ctx) const;
  void expect_seq(const YAML::Node& node, const std::string& ctx, std::size_t size) const;
  std::string text(const YAML::Node& node, const std::string& ctx) const;
  int64_t integer(const YAML::Node& node, const std::string& ctx, int64_t lo, int64_t hi) const;
  int64_t size(const YAML::Node& node, const std::string& ctx) const;
  double number(const YAML::Node& node, const std::string& what) const;
  double fraction(const YAML::Node& node, const std::string& what) const;

  MachineInfo machine(const YAML::Node& node) const;
  std::map<std::string, std::string> tuning(const YAML::Node& node) const;
  std::map<cct_collective, TransportRules> rules(const YAML::Node& node) const;
  std::vector<RankBucket> buckets(cct_collective c, const YAML::Node& node,
                                  const std::string& ctx) const;
  RankBucket bucket(cct_collective c, const YAML::Node& node, const std::string& ctx) const;
  int32_t nodes(const YAML::Node& node, int32_t np_hi, const std::string& ctx) const;
  std::vector<cct_datatype> datatypes(cct_collective c, const YAML::Node& node,
                                      const std::string& ctx) const;
  bool nonzero_roots(cct_collective c, const YAML::Node& node, const std::string& ctx) const;
  Prediction prediction(const YAML::Node& node, const RankBucket& b, const std::string& ctx) const;
  SizeRule size_rule(cct_collective c, const YAML::Node& node, const std::string& ctx) const;
  void rule_contents(cct_collective c, const YAML::Node& node, const std::string& ctx,
                     SizeRule* r) const;
  template <class Candidate>
  void candidate(cct_collective c, const YAML::Node& node, const std::string& ctx,
                 Candidate* out) const;
  std::vector<Fallback> fallbacks(cct_collective c, const YAML::Node& node,
                                  const std::string& ctx) const;
  // Runs read(), which may throw, and records what it threw in *disabled
  // where problems inside one rule disable it (RuleProblems).
  template <class Read>
  void or_disabled(std::string* disabled, Read read) const;
  std::map<std::string, int64_t> params(const AlgorithmEntry* alg, const YAML::Node& node,
                                        const std::string& ctx) const;
  void check_coverage(const std::vector<SizeRule>& sizes, const YAML::Node& node,
                      const std::string& ctx) const;

  std::string source_;
  const Registry* registry_;
  RuleProblems rule_problems_;
  int schema_ = kProfileSchema;  // the file's
};

// A node as a complaint shows it: a scalar quoted, cut at 60 characters (a
// wrong file read as YAML is one scalar of the whole file).
std::string quoted(const YAML::Node& node) {
  constexpr std::size_t kShown = 60;
  if (!node.IsScalar()) return node.IsNull() ? "nothing" : "a collection";
  const std::string& text = node.Scalar();
  if (text.size() <= kShown) return "'" + text + "'";
  return "'" + text.substr(0, kShown) + "...' (" + std::to_string(text.size()) + " characters)";
}

// What a file that is not a profile at all seems to be, for the complaint.
std::string not_a_profile(const YAML::Node& root) {
  const bool results_csv = root.IsScalar() && root.Scalar().rfind("collective,transport,", 0) == 0;
  if (results_csv)
    return "this is a ccautotune results file (CSV), not a profile: the profile is the .yaml "
           "file written beside it";
  return "expected a profile (a mapping), got " + quoted(root);
}

// Whether some call could match buckets of both type lists: an untyped
// bucket takes the calls of the types no typed one names, so two buckets
// compete where both are untyped or both name one type.
bool same_calls(const std::vector<cct_datatype>& a, const std::vector<cct_datatype>& b) {
  if (a.empty() || b.empty()) return a.empty() && b.empty();
  return std::ranges::any_of(a, [&](cct_datatype t) { return std::ranges::find(b, t) != b.end(); });
}

// Checks that a mapping has every required key, no unknown key and no key
// twice (yaml-cpp keeps duplicates; the runtime must not pick one silently).
void Reader::check_keys(const YAML::Node& map, const std::string& ctx, Keys required,
                        Keys optional) const {
  expect_map(map, ctx);
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    bool known = false;
    for (Keys keys : {required, optional})
      for (const char* k : keys) known = known || key == k;
    if (!known) fail(kv.first, ctx + ": unknown field " + quoted(kv.first));
    if (!seen.insert(key).second) fail(kv.first, ctx + ": field '" + key + "' given twice");
  }
  for (const char* k : required)
    if (!seen.count(k)) fail(map, ctx + ": missing field '" + k + "'");
}

void Reader::expect_map(const YAML::Node& node, const std::string& ctx) const {
  if (!node.IsMap()) fail(node, ctx + ": expected a mapping, got " + quoted(node));
}

void Reader::expect_seq(const YAML::Node& node, const std::string& ctx, std::size_t size) const {
  if (!node.IsSequence() || node.size() != size)
    fail(node, ctx + ": expected a list of " + std::to_string(size) + ", got " +
                   (node.IsSequence() ? std::to_string(node.size()) + " items" : quoted(node)));
}

std::string Reader::text(const YAML::Node& node, const std::string& ctx) const {
  if (!node.IsScalar()) fail(node, ctx + ": expected text, got " + quoted(node));
  return node.Scalar();
}

int64_t Reader::integer(const YAML::Node& node, const std::string& ctx, int64_t lo,
                        int64_t hi) const {
  const std::string s = text(node, ctx);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < lo || value > hi)
    fail(node, ctx + ": expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                   ", got '" + s + "'");
  return value;
}

int64_t Reader::size(const YAML::Node& node, const std::string& ctx) const {
  const std::string s = text(node, ctx);
  auto value = detail::parse_size(s);
  if (!value) fail(node, ctx + ": expected a size (0, 4k, 1M, max), got '" + s + "'");
  return *value;
}

Profile Reader::read(const YAML::Node& root) {
  if (!root.IsMap()) fail(root, not_a_profile(root));
  // The version is checked before anything else: another version's fields
  // would only produce confusing complaints.
  const YAML::Node schema = root["schema"];
  if (!schema) fail(root, "missing field 'schema'");
  schema_ = static_cast<int>(integer(schema, "schema", 0, INT32_MAX));
  if (schema_ < kOldestProfileSchema || schema_ > kProfileSchema)
    fail(schema, "unsupported schema version " + schema.Scalar() + " (this build reads " +
                     std::to_string(kOldestProfileSchema) + " to " +
                     std::to_string(kProfileSchema) + ")");
  check_keys(root, "profile", {"schema", "tool_version", "date", "machine", "tuning", "rules"}, {});
  Profile p;
  p.tool_version = text(root["tool_version"], "tool_version");
  p.date = text(root["date"], "date");
  p.machine = machine(root["machine"]);
  p.tuning = tuning(root["tuning"]);
  p.rules = rules(root["rules"]);
  return p;
}

MachineInfo Reader::machine(const YAML::Node& node) const {
  check_keys(node, "machine",
             {"fingerprint", "summary", "nodes", "ranks_per_node", "packages", "numa_nodes",
              "cores", "pus", "caches"},
             {});
  auto count = [&](const char* key) {
    return static_cast<int>(integer(node[key], std::string("machine.") + key, 1, INT32_MAX));
  };
  return MachineInfo{.fingerprint = text(node["fingerprint"], "machine.fingerprint"),
                     .summary = text(node["summary"], "machine.summary"),
                     .nodes = count("nodes"),
                     .ranks_per_node = count("ranks_per_node"),
                     .packages = count("packages"),
                     .numa_nodes = count("numa_nodes"),
                     .cores = count("cores"),
                     .pus = count("pus"),
                     .caches = text(node["caches"], "machine.caches")};
}

std::map<std::string, std::string> Reader::tuning(const YAML::Node& node) const {
  expect_map(node, "tuning");
  std::map<std::string, std::string> out;
  for (const auto& kv : node) {
    const std::string key = text(kv.first, "tuning");
    if (!out.emplace(key, text(kv.second, "tuning." + key)).second)
      fail(kv.first, "tuning: field '" + key + "' given twice");
  }
  return out;
}

std::map<cct_collective, TransportRules> Reader::rules(const YAML::Node& node) const {
  expect_map(node, "rules");
  std::map<cct_collective, TransportRules> out;
  for (const auto& kv : node) {
    cct_collective c;
    const std::string name = text(kv.first, "rules");
    if (!parse_collective(name, &c)) fail(kv.first, "rules: unknown collective '" + name + "'");
    if (out.count(c)) fail(kv.first, "rules: collective '" + name + "' given twice");
    expect_map(kv.second, "rules." + name);
    TransportRules& transports = out[c];
    for (const auto& tv : kv.second) {
      const std::string transport = text(tv.first, "rules." + name);
      const std::string ctx = "rules." + name + "." + transport;
      if (transports.count(transport)) fail(tv.first, ctx + ": transport given twice");
      transports[transport] = buckets(c, tv.second, ctx);
    }
  }
  return out;
}

std::vector<RankBucket> Reader::buckets(cct_collective c, const YAML::Node& node,
                                        const std::string& ctx) const {
  if (!node.IsSequence()) fail(node, ctx + ": expected a list of np buckets, got " + quoted(node));
  std::vector<RankBucket> out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string at = ctx + "[" + std::to_string(i) + "]";
    RankBucket b = bucket(c, node[i], at);
    // Only buckets of the same node count, element types and roots compete
    // for a communicator.
    for (const RankBucket& other : out)
      if (b.nodes == other.nodes && b.np_lo <= other.np_hi && other.np_lo <= b.np_hi &&
          same_calls(b.datatypes, other.datatypes) && b.nonzero_roots == other.nonzero_roots)
        fail(node[i], at + ": np range overlaps an earlier bucket's [" +
                          std::to_string(other.np_lo) + ", " +
                          (other.np_hi == kMaxRanks ? "max" : std::to_string(other.np_hi)) + "]" +
                          (b.nodes > 1 ? " of " + std::to_string(b.nodes) + " nodes" : "") +
                          (b.datatypes.empty() ? "" : " for one of its datatypes") +
                          (b.nonzero_roots ? std::string(" for ") + kNonzeroRootsText : ""));
    out.push_back(std::move(b));
  }
  return out;
}

RankBucket Reader::bucket(cct_collective c, const YAML::Node& node, const std::string& ctx) const {
  check_keys(node, ctx, {"np", "sizes"},
             {"nodes", "datatypes", "roots", "measured_np", "predicted"});
  const YAML::Node np = node["np"];
  expect_seq(np, ctx + ".np", 2);
  RankBucket b;
  b.np_lo = static_cast<int32_t>(integer(np[0], ctx + ".np", 1, kMaxRanks));
  b.np_hi =
      np[1].IsScalar() && np[1].Scalar() == "max"
          ? kMaxRanks
          : static_cast<int32_t>(integer(np[1], ctx + ".np end (or max)", b.np_lo, kMaxRanks));
  b.nodes = nodes(node["nodes"], b.np_hi, ctx);
  if (const YAML::Node types = node["datatypes"]) b.datatypes = datatypes(c, types, ctx);
  if (const YAML::Node roots = node["roots"]) b.nonzero_roots = nonzero_roots(c, roots, ctx);
  if (b.nonzero_roots && !b.datatypes.empty())
    fail(node["roots"], ctx +
                            ": both datatypes and roots: a bucket serves the calls of "
                            "element types or those of roots other than 0, not both");
  if (const YAML::Node measured = node["measured_np"])
    b.measured_np =
        static_cast<int32_t>(integer(measured, ctx + ".measured_np (within np)", b.np_lo, b.np_hi));
  if (const YAML::Node predicted = node["predicted"]) b.predicted = prediction(predicted, b, ctx);
  if (b.measured_np && b.predicted)
    fail(node["predicted"], ctx + ": both measured_np and predicted: a bucket is one or the other");
  const YAML::Node sizes = node["sizes"];
  if (!sizes.IsSequence() || sizes.size() == 0)
    fail(sizes, ctx + ".sizes: expected a non-empty list of size ranges");
  for (std::size_t i = 0; i < sizes.size(); ++i)
    b.sizes.push_back(size_rule(c, sizes[i], ctx + ".sizes[" + std::to_string(i) + "]"));
  check_coverage(b.sizes, sizes, ctx + ".sizes");
  return b;
}

// A bucket's `predicted` map: the size predicted (within np), the size
// it was predicted from and its node count (1 when absent), and the
// model's error where it was checked.
Prediction Reader::prediction(const YAML::Node& node, const RankBucket& b,
                              const std::string& ctx) const {
  const std::string at = ctx + ".predicted";
  if (!node.IsMap()) fail(node, at + ": expected a map of np, from_np, from_nodes and error");
  check_keys(node, at, {"np", "from_np"}, {"from_nodes", "error"});
  Prediction p;
  p.np = static_cast<int32_t>(integer(node["np"], at + ".np (within np)", b.np_lo, b.np_hi));
  p.from_np = static_cast<int32_t>(integer(node["from_np"], at + ".from_np", 1, kMaxRanks));
  if (const YAML::Node from_nodes = node["from_nodes"])
    p.from_nodes = static_cast<int32_t>(
        integer(from_nodes, at + ".from_nodes (at most from_np)", 1, p.from_np));
  if ((p.from_nodes == 1) != (b.nodes == 1))
    fail(node, at + ".from_nodes: " + std::to_string(p.from_nodes) + " for a bucket of " +
                   std::to_string(b.nodes) +
                   " node(s): a shape is predicted from a measured one of its own kind (on one "
                   "node, or across nodes)");
  if (const YAML::Node error = node["error"])
    p.error = number(error, at + ".error: expected a relative error");
  return p;
}

// A bucket's optional node count; 1 when absent, as in every profile
// written before multi-node tuning.
int32_t Reader::nodes(const YAML::Node& node, int32_t np_hi, const std::string& ctx) const {
  if (!node) return 1;
  const auto nodes = static_cast<int32_t>(integer(node, ctx + ".nodes", 1, kMaxRanks));
  // Every rank is on some node: a communicator never has fewer ranks than nodes.
  if (nodes > np_hi)
    fail(node, ctx + ".nodes: " + std::to_string(nodes) + " nodes but at most " +
                   std::to_string(np_hi) + " ranks: no communicator can match");
  return nodes;
}

// A bucket's element types: a reduction's, named as cct names them
// (int32, float, ...), no type twice; kept ascending, so that two buckets
// of the same types compare equal.
std::vector<cct_datatype> Reader::datatypes(cct_collective c, const YAML::Node& node,
                                            const std::string& ctx) const {
  const std::string at = ctx + ".datatypes";
  if (!collective_info(c).reduction)
    fail(node, at + ": only a reduction's rules depend on the element type, and " +
                   collective_name(c) + " is not one");
  if (!node.IsSequence() || node.size() == 0)
    fail(node, at + ": expected a non-empty list of element types (int32, float, double, ...)");
  std::vector<cct_datatype> out;
  for (const YAML::Node& item : node) {
    const std::string name = text(item, at);
    cct_datatype t;
    if (!parse_datatype(name, &t)) fail(item, at + ": unknown element type '" + name + "'");
    if (std::ranges::find(out, t) != out.end()) fail(item, at + ": '" + name + "' given twice");
    out.push_back(t);
  }
  std::ranges::sort(out);
  return out;
}

// A bucket's roots: `nonzero`, a rooted collective's rules for the calls
// whose root is not 0, the only class of roots the tuner measures apart
// (search.hpp, step 7).
bool Reader::nonzero_roots(cct_collective c, const YAML::Node& node, const std::string& ctx) const {
  const std::string at = ctx + ".roots";
  if (!collective_info(c).rooted)
    fail(node, at + ": only a rooted collective's rules depend on the root, and " +
                   collective_name(c) + " has none");
  if (!node.IsScalar() || node.Scalar() != "nonzero")
    fail(node, at + ": expected 'nonzero' (the rules of the calls whose root is not 0), got " +
                   quoted(node));
  return true;
}

// The range decides which sizes the rule covers, so a bad one fails the
// whole profile (the coverage check depends on it); a problem in what the
// rule says about its range may disable the rule alone (RuleProblems).
SizeRule Reader::size_rule(cct_collective c, const YAML::Node& node, const std::string& ctx) const {
  expect_map(node, ctx);
  SizeRule r;
  const YAML::Node range = node["range"];
  if (!range) fail(node, ctx + ": missing field 'range'");
  expect_seq(range, ctx + ".range", 2);
  r.lo = size(range[0], ctx + ".range");
  r.hi = size(range[1], ctx + ".range");
  if (r.lo >= r.hi) fail(range, ctx + ".range: empty range, its start is not below its end");
  or_disabled(&r.disabled, [&] { rule_contents(c, node, ctx, &r); });
  if (!r.disabled.empty() && r.algorithm.empty()) r.fallbacks.clear();  // not a rule at all
  return r;
}

template <class Read>
void Reader::or_disabled(std::string* disabled, Read read) const {
  try {
    read();
  } catch (const Error& e) {
    if (rule_problems_ == RuleProblems::kFail) throw;
    *disabled = e.what();
  }
}

// The fields of a rule (schema 2 adds its fallbacks); a problem with its
// first choice disables that alone, a problem with a fallback that
// fallback alone.
void Reader::rule_contents(cct_collective c, const YAML::Node& node, const std::string& ctx,
                           SizeRule* r) const {
  if (schema_ >= 3)
    check_keys(node, ctx, {"range", "algorithm"},
               {"params", "median_s", "fallbacks", "margin", "noise"});
  else if (schema_ >= 2)
    check_keys(node, ctx, {"range", "algorithm"}, {"params", "median_s", "fallbacks"});
  else
    check_keys(node, ctx, {"range", "algorithm"}, {"params", "median_s"});
  r->algorithm = text(node["algorithm"], ctx + ".algorithm");
  if (const YAML::Node margin = node["margin"])
    r->margin = fraction(margin, ctx + ".margin: expected a fraction above -1");
  if (const YAML::Node noise = node["noise"])
    r->noise = number(noise, ctx + ".noise: expected a fraction");
  if (const YAML::Node list = node["fallbacks"]) r->fallbacks = fallbacks(c, list, ctx);
  candidate(c, node, ctx, r);
}

std::vector<Fallback> Reader::fallbacks(cct_collective c, const YAML::Node& node,
                                        const std::string& ctx) const {
  if (!node.IsSequence())
    fail(node, ctx + ".fallbacks: expected a list of candidates, got " + quoted(node));
  std::vector<Fallback> out(node.size());
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string at = ctx + ".fallbacks[" + std::to_string(i) + "]";
    or_disabled(&out[i].disabled, [&] {
      check_keys(node[i], at, {"algorithm"}, {"params", "median_s"});
      out[i].algorithm = text(node[i]["algorithm"], at + ".algorithm");
      candidate(c, node[i], at, &out[i]);
    });
  }
  return out;
}

// A candidate's algorithm (read already), parameters and figure.
template <class Candidate>
void Reader::candidate(cct_collective c, const YAML::Node& node, const std::string& ctx,
                       Candidate* out) const {
  const AlgorithmEntry* alg = nullptr;
  std::string why;
  if (registry_ && !(alg = detail::find_algorithm_or_why(*registry_, c, out->algorithm, &why)))
    fail(node["algorithm"], ctx + ".algorithm: " + why);
  if (const YAML::Node params = node["params"]) out->params = this->params(alg, params, ctx);
  if (const YAML::Node median = node["median_s"])
    out->median_s = number(median, ctx + ".median_s: expected seconds");
}

// A finite number above -1 (a margin: how much slower another was); `what`
// says what was expected.
double Reader::fraction(const YAML::Node& node, const std::string& what) const {
  double value = 0;
  const bool number = node.IsScalar() && YAML::convert<double>::decode(node, value);
  if (!number || !(value > -1 && std::isfinite(value))) fail(node, what + ", got " + quoted(node));
  return value;
}

// A finite number >= 0; `what` says what was expected.
double Reader::number(const YAML::Node& node, const std::string& what) const {
  double value = 0;
  const bool number = node.IsScalar() && YAML::convert<double>::decode(node, value);
  if (!number || !(value >= 0 && std::isfinite(value)))
    fail(node, what + " (a number >= 0), got " + quoted(node));
  return value;
}

std::map<std::string, int64_t> Reader::params(const AlgorithmEntry* alg, const YAML::Node& node,
                                              const std::string& ctx) const {
  expect_map(node, ctx + ".params");
  std::map<std::string, int64_t> out;
  for (const auto& kv : node) {
    const std::string name = text(kv.first, ctx + ".params");
    const std::string value_text = text(kv.second, ctx + ".params." + name);
    auto value = detail::parse_param_value(value_text);
    if (!value)
      fail(kv.second, ctx + ".params." + name + ": expected an integer, got '" + value_text + "'");
    if (alg)
      if (std::string problem = detail::param_problem(*alg, name, *value); !problem.empty())
        fail(kv.first, ctx + ".params: " + problem);
    if (!out.emplace(name, *value).second)
      fail(kv.first, ctx + ".params: parameter '" + name + "' given twice");
  }
  return out;
}

// The ranges of a bucket must tile [0, max): start at 0, each begin where
// the previous ended, the last end at max. Then every size has exactly one
// rule and a lookup never depends on the order of overlapping entries.
void Reader::check_coverage(const std::vector<SizeRule>& sizes, const YAML::Node& node,
                            const std::string& ctx) const {
  auto where = [&](std::size_t i) { return ctx + "[" + std::to_string(i) + "].range: "; };
  if (sizes.front().lo != 0)
    fail(node[0], where(0) + "the first range must start at 0, not " +
                      detail::format_size(sizes.front().lo));
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    const int64_t prev_hi = sizes[i - 1].hi;
    if (sizes[i].lo < prev_hi)
      fail(node[i],
           where(i) + "overlaps the previous range, which ends at " + detail::format_size(prev_hi));
    if (sizes[i].lo > prev_hi)
      fail(node[i], where(i) + "leaves a gap [" + detail::format_size(prev_hi) + ", " +
                        detail::format_size(sizes[i].lo) + ") after the previous range");
  }
  if (sizes.back().hi != kMaxBytes)
    fail(node[sizes.size() - 1], where(sizes.size() - 1) + "the last range must end at max, not " +
                                     detail::format_size(sizes.back().hi));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the profile", CCT_ERR_INVALID_ARG);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(path + ": cannot read the profile", CCT_ERR_INVALID_ARG);
  return text.str();
}

// Where text holds what yaml-cpp would read but not write back as it was
// (a profile the tools rewrite would then quietly differ from the one
// read), and what.
struct NotYaml {
  std::size_t at;
  const char* what;
};
std::optional<NotYaml> not_yaml_text(std::string_view text) {
  if (const std::optional<std::size_t> at = detail::first_non_utf8(text))
    return NotYaml{*at, "not UTF-8 text; a profile is YAML, which is Unicode"};
  if (const std::optional<std::size_t> at = detail::first_non_printable(text))
    return NotYaml{*at, "not YAML text: a control character or U+FFFE/U+FFFF"};
  return std::nullopt;
}

}  // namespace

Profile profile_from_yaml(const std::string& text, const std::string& source,
                          const Registry* registry, RuleProblems rule_problems) {
  if (const std::optional<NotYaml> bad = not_yaml_text(text))
    throw Error(source + ":" +
                    std::to_string(std::count(text.begin(), text.begin() + bad->at, '\n') + 1) +
                    ": " + bad->what + " (byte " + std::to_string(bad->at) + ")",
                CCT_ERR_INVALID_ARG);
  // ParserException for malformed YAML; any other yaml-cpp exception would
  // be a reader bug, still reported with its position rather than escaping.
  try {
    return Reader(source, registry, rule_problems).read(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    throw Error(source + ":" + std::to_string(std::max(e.mark.line, 0) + 1) + ": " + e.msg,
                CCT_ERR_INVALID_ARG);
  }
}

Profile load_profile(const std::string& path, const Registry* registry,
                     RuleProblems rule_problems) {
  return profile_from_yaml(read_file(path), path, registry, rule_problems);
}

}  // namespace cct
