#include "tuner/output.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "cct/units.hpp"
#include "tuner/accuracy.hpp"
#include "tuner/outside_figures.hpp"
#include "tuner/report_html.hpp"
#include "tuner/shape_text.hpp"
#include "tuner/utc_time.hpp"
#include "tuner/variant_rules.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {
namespace {

namespace fs = std::filesystem;

// Whether a row was measured in the count patterns of this run: all of
// them, or (a confirmation, timed in each pattern apart: search.hpp) one.
bool counts_fit(const ResultRow& row, const std::vector<CountPattern>& asked) {
  if (row.counts.empty() || row.counts == count_patterns_label(asked)) return true;
  const std::optional<std::vector<CountPattern>> patterns = parse_count_patterns(row.counts);
  return is_confirmation(row.stage) && patterns && patterns->size() == 1 &&
         std::find(asked.begin(), asked.end(), patterns->front()) != asked.end();
}

// A resumed run measures in the count patterns its rows were measured in:
// rows of both sorts in one file would compete for one profile whose
// `vector_counts` tells only one.
void expect_same_counts(const ResultRow& row, const Options& opts) {
  if (counts_fit(row, opts.filter.vector_counts)) return;
  const std::string asked = count_patterns_label(opts.filter.vector_counts);
  throw UsageError(opts.results + " holds " + row.collective + " rows measured in " + row.counts +
                   " blocks, and this run measures in " + asked +
                   " blocks (--vector-counts): resume with the --vector-counts they had, or "
                   "write another --out");
}

// The rows of earlier runs by key, with --resume.
std::map<std::string, ResultRow> resume_rows(const Options& opts) {
  std::map<std::string, ResultRow> known;
  if (opts.resume)
    for (ResultRow& row : read_results(opts.results)) {
      expect_same_counts(row, opts);
      known[row.key()] = std::move(row);
    }
  else if (!read_results(opts.results).empty())
    throw UsageError(opts.results +
                     " holds measurements: pass --resume to continue it, or remove it");
  return known;
}

std::string joined(const std::vector<int>& values) {
  std::ostringstream text;
  for (int v : values) text << (text.tellp() > 0 ? "," : "") << v;
  return text.str();
}

// How the points were chosen (search.hpp, shortlist.hpp).
std::string search_setting(const Options& opts) {
  if (opts.search.exhaustive) return "exhaustive";
  if (opts.shortlist == 0) return "successive halving";
  std::string setting =
      "successive halving; beyond the two smallest np, the cost model's shortlist of " +
      std::to_string(opts.shortlist);
  if (!opts.confirm_shapes.empty()) {
    std::string shapes;
    for (const ConfirmedShape& s : opts.confirm_shapes)
      shapes += (shapes.empty() ? "" : ", ") + shape_text(s.nodes, s.np);
    setting += "; " + shapes + " predicted, confirmed by a shortlist of 1";
  }
  return setting;
}

// The rank counts of a run on one node, or the shapes of one under mpirun.
std::map<std::string, std::string> tuning_settings(const Options& opts) {
  // Measured on another machine of this kind, with its settings (--from-results).
  if (!opts.results_tuning.empty()) return opts.results_tuning;
  std::ostringstream budget;
  budget << opts.measure.budget_s;
  std::map<std::string, std::string> settings{
      {"min_bytes", format_bytes(opts.filter.min_bytes)},
      {"max_bytes", format_bytes(opts.filter.max_bytes)},
      {"max_rank_bytes", format_bytes(opts.filter.max_rank_bytes)},
      {"quick", opts.filter.quick ? "true" : "false"},
      {"budget_s", budget.str()},
      {"search", search_setting(opts)},
      // The count patterns of the vector collectives' figures (Call::patterns).
      {"vector_counts", count_patterns_label(opts.filter.vector_counts)},
      // The element types a reduction's finalists were measured in besides
      // int32 (search.hpp, step 6).
      {"datatypes", opts.search.datatypes.empty() ? "none" : datatypes_text(opts.search.datatypes)},
      // Whether a rooted collective's finalists were timed at the last rank
      // as root too (search.hpp, step 7).
      {"roots", opts.search.other_root ? "last" : "none"}};
  if (!opts.nps.empty()) settings["np"] = joined(opts.nps);
  if (!opts.nodes.empty()) settings["nodes"] = joined(opts.nodes);
  if (!opts.ranks_per_node.empty()) settings["ranks_per_node"] = joined(opts.ranks_per_node);
  if (opts.noise) settings["noise"] = noise_record(opts.noise->first, opts.noise->second);
  return settings;
}

// The end of a run: how programs get the profile just written.
std::string how_to_use(const std::string& path, const std::string& out) {
  std::error_code ec;
  const std::vector<std::string> searched = profile_dirs();
  const bool found_by_itself = std::any_of(searched.begin(), searched.end(), [&](const auto& dir) {
    return fs::equivalent(dir, out, ec);
  });
  const std::string interposer = host_library_dir() + "/libcct_mpi.so";
  std::string text = "use it: ";
  text += found_by_itself ? "programs on this machine find it by themselves (`ccinfo` shows it)"
                          : "CCT_PROFILE=" + path + " (" + out +
                                " is not a directory the runtime searches; see CCT_PROFILE_PATH)";
  if (fs::exists(interposer, ec))
    text += "; under an MPI program: mpirun -x LD_PRELOAD=" + interposer +
            (found_by_itself ? "" : " -x CCT_PROFILE") + " ... ./app";
  return text + "\n";
}

// One line per failed candidate of the results: what, where, why.
std::string failures(const std::vector<ResultRow>& rows) {
  std::string text;
  for (const ResultRow& r : rows)
    if (r.stage == Stage::kFailed)
      text += "failed, left out of its shape: " + r.choice() + " at " + r.collective + " " +
              r.transport + " " + shape_text(r.nodes, r.np) + " " + format_bytes(r.bytes) + ": " +
              r.note + "\n";
  return text;
}

// The report of the results beside the profile (--report).
std::string write_report_page(const std::vector<ResultRow>& rows, const Registry& registry,
                              const MachineInfo& machine, const Options& opts) {
  const std::string path = (fs::path(opts.out) / (machine.fingerprint + ".html")).string();
  std::ofstream page(path);
  write_report(
      {.rows = rows, .results = opts.results, .machine = machine, .made_by = opts.command_line},
      registry, page);
  page.close();
  if (!page) throw Error("cannot write the report " + path);
  return path;
}

// The profile of the results file's rows, the sizes the outside check
// refuted given back to the library, saved with `machine` and `tuning`.
bool save_profile_of(const Registry& registry, const MachineInfo& machine,
                     std::map<std::string, std::string> tuning, const Options& opts,
                     const PredictionPlan* plan) {
  std::vector<ResultRow> rows = read_results(opts.results);
  std::erase_if(rows, [&](const ResultRow& r) { return excluded(opts.filter, r.algorithm); });
  for (const std::string& line :
       give_back_refuted(rows, read_outside(outside_path(opts.results)), registry))
    std::cout << "outside check: given back to the library: " << line << "\n";
  const Winners winners = pick_winners(rows, registry);
  for (const std::string& why : winners.ignored)
    std::cerr << "ccautotune: results rows left out of the profile: " << why << "\n";
  for (const std::string& why : winners.one_rule) std::cout << why << "\n";
  if (winners.best.empty()) {
    std::cerr << "ccautotune: nothing measured in " << opts.results << "; no profile written\n";
    return false;
  }
  const Predictions predicted = plan ? predict(winners, registry, *plan) : Predictions{};
  Profile profile{.tool_version = CCT_VERSION,
                  .date = utc_now(),
                  .machine = machine,
                  .tuning = std::move(tuning),
                  .rules = rules_with_predictions(winners.best, predicted)};
  const VariantRules typed =
      variant_rules(Variation::kElementType, rows, winners, profile.rules, registry);
  const VariantRules rooted =
      variant_rules(Variation::kRoot, rows, winners, profile.rules, registry);
  add_variants(profile.rules, typed);
  add_variants(profile.rules, rooted);
  const std::string accuracy = describe(profile_accuracy(rows, profile, registry));
  profile.tuning["accuracy"] = accuracy;
  const std::string path = (fs::path(opts.out) / (profile.machine.fingerprint + ".yaml")).string();
  save_profile(profile, path);
  load_profile(path, &registry);
  std::cout << rules_table(profile.rules, registry) << library_kept(profile.rules, registry)
            << failures(rows) << accuracy << "\n"
            << predicted.report;
  for (const std::string& line : typed.report) std::cout << "element types: " << line << "\n";
  for (const std::string& line : rooted.report) std::cout << "roots: " << line << "\n";
  if (const std::string warning =
          opts.noise ? noise_warning(opts.noise->first, opts.noise->second) : "";
      !warning.empty())
    std::cout << "ccautotune: " << warning << "\n";
  std::cout << "profile: " << path << "\nresults: " << opts.results << "\n";
  if (opts.report)
    std::cout << "report: " << write_report_page(rows, registry, profile.machine, opts) << "\n";
  std::cout << how_to_use(path, opts.out) << std::flush;
  return true;
}

// Where the outside check's figures beside the results give sizes back
// but no check runs now (--resume with --outside-runs 0), what the check
// that measured them found, from the profile it made (beside the results),
// so that the new profile says why it keeps those sizes on the library;
// nothing where that profile is gone, unreadable or says nothing of it.
std::optional<std::string> earlier_outside(const Registry& registry, const Options& opts) {
  if (!fs::exists(outside_path(opts.results))) return std::nullopt;
  try {
    const Profile earlier = load_profile(profile_beside(opts.results), &registry);
    if (const auto it = earlier.tuning.find("outside"); it != earlier.tuning.end())
      return it->second;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

bool write_profile(const Registry& registry, const MachineInfo& machine, const Options& opts,
                   const PredictionPlan* plan) {
  std::map<std::string, std::string> tuning = tuning_settings(opts);
  if (std::optional<std::string> outside = earlier_outside(registry, opts))
    tuning["outside"] = std::move(*outside);
  return save_profile_of(registry, machine, std::move(tuning), opts, plan);
}

bool rewrite_profile(const Registry& registry, const Options& opts, const PredictionPlan* plan,
                     const std::string& outside) {
  const Profile written = load_profile(profile_beside(opts.results), &registry);
  std::map<std::string, std::string> tuning = written.tuning;
  tuning["outside"] = outside;
  return save_profile_of(registry, written.machine, std::move(tuning), opts, plan);
}

OpenedResults open_results(Options& opts, const std::string& fingerprint) {
  if (opts.out.empty()) opts.out = default_profile_out_dir();
  opts.results = (fs::path(opts.out) / (fingerprint + ".csv")).string();
  fs::create_directories(opts.out);
  OutLock lock(opts.out);
  return {.lock = std::move(lock), .known = resume_rows(opts)};
}

}  // namespace cct::tuner
