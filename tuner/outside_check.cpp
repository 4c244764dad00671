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
using Figures = std::map<Point, double>;        // one run's avg_us

struct Run {
  Figures figures;
  int np = 0;
};

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

// The benchmark's lines "collective bytes avg_us min_us max_us iterations"
// and its header "# ... (N ranks)".
Run parse_run(const std::string& output) {
  Run run;
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
    if (fields >> name >> bytes >> avg_us >> min_us >> max_us >> iterations &&
        find_collective(name) != nullptr && avg_us > 0)
      run.figures[{name, bytes}] = avg_us * 1e-6;
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

  Run run(bool interposed) const {
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
    Run parsed = parse_run(done.output);
    if (parsed.figures.empty() || parsed.np < 1)
      throw Error("osu_style_bench " + side + " printed no figures:\n" + tail(done.output, 8));
    return parsed;
  }

 private:
  const OutsideRun& how_;
  std::string program_, interposer_, profile_;
};

double median(std::vector<double> values) {
  std::ranges::sort(values);
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Each point's median over the runs that timed it.
Figures medians(const std::vector<Run>& runs) {
  std::map<Point, std::vector<double>> all;
  for (const Run& run : runs)
    for (const auto& [point, seconds] : run.figures) all[point].push_back(seconds);
  Figures out;
  for (auto& [point, values] : all) out[point] = median(std::move(values));
  return out;
}

// Both sides run the library's own code where the profile keeps it, so
// those points' ratios measure how far this check's two sides drifted
// apart (on the project's VM whole processes run in faster or slower
// modes: in one check the library's 8-byte bcast, kept, took 0.57 us under
// the interposer and 0.33 alone, every kept point about 1.5x). The picks'
// figures are divided by the median of those ratios, where at least
// kFewestKept points keep the library.
constexpr int kFewestKept = 10;

void calibrate(OutsideResult& result, const Registry& registry) {
  std::vector<double> kept;
  for (const OutsideFigure& f : result.figures)
    if (keeps_library(f, registry)) kept.push_back(f.profile_s / f.library_s);
  if (static_cast<int>(kept.size()) < kFewestKept) return;
  result.kept = static_cast<int>(kept.size());
  result.calibration = median(std::move(kept));
  for (OutsideFigure& f : result.figures)
    if (!keeps_library(f, registry)) f.profile_s /= result.calibration;
}

}  // namespace

OutsideResult check_outside(const std::string& profile_path, const Registry& registry,
                            const OutsideRun& how) {
  const Bench bench(profile_path, how);
  std::vector<Run> library, profiled;
  for (int i = 0; i < how.runs; ++i) {
    std::cout << "ccautotune: outside check, run " << i + 1 << " of " << how.runs << " a side"
              << std::endl;
    // Alternated, and in turn first, so that neither side always follows the other.
    const bool library_first = i % 2 == 0;
    (library_first ? library : profiled).push_back(bench.run(!library_first));
    (library_first ? profiled : library).push_back(bench.run(library_first));
  }
  OutsideResult result{.np = library.front().np};
  const Profile profile = load_profile(profile_path, &registry);
  // The runtime serves one node's communicator with shm (comm_runtimes.cpp).
  const Selector selector(profile, {}, registry, "shm", result.np, 1);
  const Figures alone = medians(library), with = medians(profiled);
  double log_sum = 0;
  for (const auto& [point, library_s] : alone) {
    const auto profile_s = with.find(point);
    if (profile_s == with.end()) continue;
    const CollectiveInfo& c = *find_collective(point.first);
    // The benchmark's reductions are of float; its other calls move bytes.
    const cct_datatype dtype = c.reduction ? CCT_FLOAT : CCT_DATATYPE_COUNT;
    const Selection* pick = selector.select(c.id, static_cast<std::size_t>(point.second), dtype);
    const AlgorithmEntry* alg =
        pick ? pick->algorithm : registry.find_algorithm(c.id, c.default_algorithm);
    if (alg == nullptr) continue;
    log_sum += std::log(profile_s->second / library_s);
    const bool typed = pick && pick->bucket == Selection::Bucket::kElementType;
    result.figures.push_back(
        {.collective = c.name,
         .transport = "shm",
         .np = result.np,
         .bytes = point.second,
         .datatype = typed ? datatype_name(CCT_FLOAT) : "",
         .pick = pick ? format_choice(*alg->desc, pick->params) : alg->desc->name,
         .library_s = library_s,
         .profile_s = profile_s->second,
         .runs = how.runs});
  }
  if (!result.figures.empty()) result.geometric_mean = std::exp(log_sum / result.figures.size());
  calibrate(result, registry);
  for (const OutsideFigure& f : result.figures)
    if (!keeps_library(f, registry)) {
      ++result.picks;
      result.refuted += f.refuted();
    }
  return result;
}

}  // namespace cct::tuner
