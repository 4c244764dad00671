// The YAML writer: a profile as text (yaml-cpp's emitter), and the atomic
// save (temporary file in the target's directory, then rename).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "cct/error.hpp"
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

void emit_size_rule(YAML::Emitter& out, const SizeRule& r) {
  out << YAML::BeginMap;
  out << YAML::Key << "range" << YAML::Value << YAML::Flow << YAML::BeginSeq
      << detail::format_size(r.lo) << detail::format_size(r.hi) << YAML::EndSeq;
  out << YAML::Key << "algorithm" << YAML::Value << r.algorithm;
  if (!r.params.empty()) {
    out << YAML::Key << "params" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [name, value] : r.params) out << YAML::Key << name << YAML::Value << value;
    out << YAML::EndMap;
  }
  if (r.median_s) out << YAML::Key << "median_s" << YAML::Value << shortest(*r.median_s);
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

// Writes all of text to fd; false (errno set) on a short or failed write.
bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void fail_save(const std::string& path, const std::string& step, int error) {
  throw Error("cannot save profile " + path + ": " + step + ": " + std::strerror(error));
}

// The temporary file lives beside the target so that rename() stays on one
// file system and is atomic: readers see the old profile or the new one.
void write_atomically(const std::string& path, const std::string& text) {
  std::filesystem::path target(path);
  std::string tmp =
      (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail_save(path, "creating a temporary file", errno);
  bool ok = ::fchmod(fd, 0644) == 0 && write_all(fd, text) && ::fsync(fd) == 0;
  int error = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && ::rename(tmp.c_str(), path.c_str()) == 0) return;
  if (ok) error = errno;
  ::unlink(tmp.c_str());
  fail_save(path, ok ? "renaming the temporary file" : "writing", error);
}

}  // namespace

std::string profile_to_yaml(const Profile& p) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "schema" << YAML::Value << p.schema;
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
  write_atomically(path, text);
}

}  // namespace cct
