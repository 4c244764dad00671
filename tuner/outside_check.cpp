#include "tuner/outside_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string_view>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/units.hpp"
#include "tuner/child_process.hpp"

extern char** environ;

namespace cct::tuner {
namespace {

namespace fs = std::filesystem;

using Point = std::pair<std::string, int64_t>;  // (collective, bytes)

// This process's environment without what would change either side: the
// preload, and the settings that overrule the profile or the transport
// the runtime picks (a CCT_FORCE of the user's) or add output; kept: where
// plugins and profiles are found (CCT_PLUGIN_PATH, ...). Then `extra`.
std::vector<std::string> environment(const std::vector<std::string>& extra) {
  constexpr std::string_view kLeftOut[] = {
      "LD_PRELOAD=", "CCT_FORCE=", "CCT_PROFILE=", "CCT_LOG=", "CCT_STATS=", "CCT_TRANSPORT="};
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::ranges::none_of(kLeftOut, [&](std::string_view name) {
          return std::string_view(*e).starts_with(name);
        }))
      env.emplace_back(*e);
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// The benchmark's lines "collective bytes avg_us min_us max_us iterations
// probe_us" (an older one's without probe_us: 0) and its header "# ... (N
// ranks)".
BenchRun parse_run(const std::string& output) {
  BenchRun run;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (const auto at = line.find(" ranks)"); line.starts_with("#") && at != std::string::npos) {
      run.np = std::atoi(line.c_str() + line.rfind('(', at) + 1);
      continue;
    }
    std::istringstream fields(line);
    std::string name;
    int64_t bytes = 0;
    double avg_us = 0, min_us = 0, max_us = 0;
    int iterations = 0;
    if (!(fields >> name >> bytes >> avg_us >> min_us >> max_us >> iterations) ||
        find_collective(name) == nullptr || !(avg_us > 0))
      continue;
    double probe_us = 0;
    if (!(fields >> probe_us)) probe_us = 0;
    run.figures[{name, bytes}] = {.seconds = avg_us * 1e-6, .probe = probe_us * 1e-6};
  }
  return run;
}

std::string tail(const std::string& text, std::size_t lines) {
  std::size_t at = text.size();
  for (std::size_t n = 0; at > 0 && n <= lines; --at)
    if (text[at - 1] == '\n') ++n;
  return text.substr(at);
}

class Bench {
 public:
  Bench(const std::string& profile_path, const OutsideRun& how) : how_(how) {
    const fs::path bin = fs::read_symlink("/proc/self/exe").parent_path();
    program_ = (bin / "osu_style_bench").string();
    interposer_ = host_library_dir() + "/libcct_mpi.so";
    for (const std::string& needed : {program_, interposer_})
      if (!fs::exists(needed)) throw Error(needed + " not found");
    profile_ = fs::absolute(profile_path).string();
  }

  BenchRun run(bool interposed) const {
    std::vector<std::string> args{"mpirun"};
    if (geteuid() == 0) args.push_back("--allow-run-as-root");
    std::istringstream extra(how_.mpirun_args);
    for (std::string word; extra >> word;) args.push_back(word);
    std::vector<std::string> env;
    if (interposed) {
      args.insert(args.end(), {"-x", "LD_PRELOAD", "-x", "CCT_PROFILE"});
      env = {"LD_PRELOAD=" + interposer_, "CCT_PROFILE=" + profile_};
    }
    args.insert(args.end(), {program_, std::to_string(how_.max_bytes)});
    const ChildResult done = run_child(args, environment(env), how_.timeout_s);
    const std::string side = interposed ? "under the interposer" : "on the library alone";
    if (done.timed_out || done.status != 0)
      throw Error("osu_style_bench " + side +
                  (done.timed_out ? " timed out after " + std::to_string(how_.timeout_s) + " s"
                                  : " failed (exit status " + std::to_string(done.status) + ")") +
                  "; its last lines:\n" + tail(done.output, 8));
    BenchRun parsed = parse_run(done.output);
    if (parsed.figures.empty() || parsed.np < 1)
      throw Error("osu_style_bench " + side + " printed no figures:\n" + tail(done.output, 8));
    return parsed;
  }

 private:
  const OutsideRun& how_;
  std::string program_, interposer_, profile_;
};

}  // namespace

OutsideResult check_outside(const std::string& profile_path, const Registry& registry,
                            const OutsideRun& how) {
  const Bench bench(profile_path, how);
  std::vector<BenchRun> library, profiled;
  // Alternated, and in turn first, so that neither side always follows the other.
  const auto run_both = [&](int i) {
    const bool library_first = i % 2 == 0;
    (library_first ? library : profiled).push_back(bench.run(!library_first));
    (library_first ? profiled : library).push_back(bench.run(library_first));
  };
  for (int i = 0; i < how.runs; ++i) {
    std::cout << "ccautotune: outside check, run " << i + 1 << " of " << how.runs << " a side"
              << std::endl;
    run_both(i);
  }
  // Up to as many again, until each side has runs at both latency levels.
  for (int i = how.runs; i < 2 * how.runs && !both_levels_seen(library, profiled); ++i) {
    std::cout << "ccautotune: outside check, run " << i + 1 << " a side: a side has fewer than "
              << kFewestAtLevel << " runs at one of the machine's two latency levels" << std::endl;
    run_both(i);
  }
  return judge_outside(library, profiled, load_profile(profile_path, &registry), registry);
}

}  // namespace cct::tuner
