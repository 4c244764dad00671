// The YAML writer: a profile as text (yaml-cpp's emitter), and the atomic
// save (temporary file in the target's directory, then rename).
#include <yaml-cpp/yaml.h>

#include <charconv>

#include "cct/error.hpp"
#include "cct/files.hpp"
#include "cct/profile.hpp"
#include "profile_check.hpp"

namespace cct {
namespace {

void emit_machine(YAML::Emitter& out, const MachineInfo& m) {
  out << YAML::Key << "machine" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "fingerprint" << YAML::Value << m.fingerprint;
  out << YAML::Key << "summary" << YAML::Value << m.summary;
  out << YAML::Key << "nodes" << YAML::Value << m.nodes;
  out << YAML::Key << "ranks_per_node" << YAML::Value << m.ranks_per_node;
  out << YAML::Key << "packages" << YAML::Value << m.packages;
  out << YAML::Key << "numa_nodes" << YAML::Value << m.numa_nodes;
  out << YAML::Key << "cores" << YAML::Value << m.cores;
  out << YAML::Key << "pus" << YAML::Value << m.pus;
  out << YAML::Key << "caches" << YAML::Value << m.caches;
  out << YAML::EndMap;
}

// The shortest text that reads back as exactly x (1.51e-07, not
// 1.5099999999999999e-07): what the results file said, and still exact.
std::string shortest(double x) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, x);
  return std::string(text, end);
}

// A candidate's fields after `algorithm`, which the caller wrote.
template <class Candidate>
void emit_candidate(YAML::Emitter& out, const Candidate& c) {
  if (!c.params.empty()) {
    out << YAML::Key << "params" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [name, value] : c.params) out << YAML::Key << name << YAML::Value << value;
    out << YAML::EndMap;
  }
  if (c.median_s) out << YAML::Key << "median_s" << YAML::Value << shortest(*c.median_s);
}

void emit_size_rule(YAML::Emitter& out, const SizeRule& r) {
  out << YAML::BeginMap;
  out << YAML::Key << "range" << YAML::Value << YAML::Flow << YAML::BeginSeq
      << detail::format_size(r.lo) << detail::format_size(r.hi) << YAML::EndSeq;
  out << YAML::Key << "algorithm" << YAML::Value << r.algorithm;
  emit_candidate(out, r);
  if (r.margin) out << YAML::Key << "margin" << YAML::Value << shortest(*r.margin);
  if (r.noise) out << YAML::Key << "noise" << YAML::Value << shortest(*r.noise);
  if (!r.fallbacks.empty()) {
    out << YAML::Key << "fallbacks" << YAML::Value << YAML::BeginSeq;
    for (const Fallback& f : r.fallbacks) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "algorithm" << YAML::Value << f.algorithm;
      emit_candidate(out, f);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

void emit_bucket(YAML::Emitter& out, const RankBucket& b) {
  out << YAML::BeginMap;
  out << YAML::Key << "np" << YAML::Value << YAML::Flow << YAML::BeginSeq << b.np_lo;
  if (b.np_hi == kMaxRanks)
    out << "max";
  else
    out << b.np_hi;
  out << YAML::EndSeq;
  // Only where it says something, so single-node profiles stay as they were
  // (a bad count is still written, for save_profile's load-back to refuse).
  if (b.nodes != 1) out << YAML::Key << "nodes" << YAML::Value << b.nodes;
  if (!b.datatypes.empty()) {
    out << YAML::Key << "datatypes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (cct_datatype t : b.datatypes) out << datatype_name(t);
    out << YAML::EndSeq;
  }
  if (b.nonzero_roots) out << YAML::Key << "roots" << YAML::Value << "nonzero";
  if (b.measured_np) out << YAML::Key << "measured_np" << YAML::Value << *b.measured_np;
  if (b.predicted) {
    out << YAML::Key << "predicted" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "np" << YAML::Value << b.predicted->np;
    out << YAML::Key << "from_np" << YAML::Value << b.predicted->from_np;
    if (b.predicted->from_nodes != 1)
      out << YAML::Key << "from_nodes" << YAML::Value << b.predicted->from_nodes;
    if (b.predicted->error) out << YAML::Key << "error" << YAML::Value << *b.predicted->error;
    out << YAML::EndMap;
  }
  out << YAML::Key << "sizes" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : b.sizes) emit_size_rule(out, r);
  out << YAML::EndSeq << YAML::EndMap;
}

void emit_rules(YAML::Emitter& out, const std::map<cct_collective, TransportRules>& rules) {
  out << YAML::Key << "rules" << YAML::Value << YAML::BeginMap;
  for (const auto& [collective, transports] : rules) {
    out << YAML::Key << collective_name(collective) << YAML::Value << YAML::BeginMap;
    for (const auto& [transport, buckets] : transports) {
      out << YAML::Key << transport << YAML::Value << YAML::BeginSeq;
      for (const auto& b : buckets) emit_bucket(out, b);
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string profile_to_yaml(const Profile& p) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "schema" << YAML::Value << kProfileSchema;  // this build's form
  out << YAML::Key << "tool_version" << YAML::Value << p.tool_version;
  out << YAML::Key << "date" << YAML::Value << p.date;
  emit_machine(out, p.machine);
  out << YAML::Key << "tuning" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, value] : p.tuning) out << YAML::Key << key << YAML::Value << value;
  out << YAML::EndMap;
  emit_rules(out, p.rules);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

void save_profile(const Profile& profile, const std::string& path) {
  const std::string text = profile_to_yaml(profile);
  // A profile built in code has not been through the reader's checks; one
  // that would not load again is refused now, not at the runtime's start.
  try {
    profile_from_yaml(text, path, nullptr);
  } catch (const Error& e) {
    throw Error("cannot save profile " + path + ": it would not load: " + e.what());
  }
  write_file_atomically(path, text, 0644, "cannot save profile");
}

}  // namespace cct
