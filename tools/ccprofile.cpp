// ccprofile: look at a profile before using it: validate, show, explain a
// call's choice, diff two profiles; and merge two of one machine. Reads
// profiles the way the runtime does. And a report of the results file a
// profile was built from, with plots (tuner/report_html.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cct/cli/validators.hpp"
#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "cct/topology.hpp"
#include "cct/units.hpp"
#include "profile_diff.hpp"
#include "profile_explain.hpp"
#include "profile_merge.hpp"
#include "tuner/accuracy.hpp"
#include "tuner/report_html.hpp"
#include "tuner/results_csv.hpp"
#include "tuner/winners.hpp"

namespace {

// Every problem of one file, one line each ("file:line: what"): the first
// that makes the file unusable as a whole, else each rule the runtime would
// leave out. Empty when the file is clean.
std::vector<std::string> problems_of(const std::string& path, const cct::Registry& registry) {
  cct::Profile p;
  try {
    p = cct::load_profile(path, &registry, cct::RuleProblems::kDisableRule);
  } catch (const cct::Error& e) {
    return {e.what()};
  }
  return cct::disabled_rules(p);
}

int validate(const std::vector<std::string>& files, const cct::Registry& registry) {
  int status = 0;
  for (const std::string& f : files) {
    const std::vector<std::string> problems = problems_of(f, registry);
    if (problems.empty()) std::cout << f << ": valid\n";
    for (const std::string& p : problems) std::cout << p << "\n";
    if (!problems.empty()) status = 1;
  }
  return status;
}

int show(const std::string& file, const cct::Registry& registry) {
  const cct::Profile p = cct::load_profile(file, &registry, cct::RuleProblems::kDisableRule);
  std::cout << file << ": tuned " << p.date << " by ccautotune " << p.tool_version << " on "
            << p.machine.summary << ", fingerprint " << p.machine.fingerprint << "\n";
  for (const auto& [key, value] : p.tuning) std::cout << "  " << key << ": " << value << "\n";
  std::cout << cct::tuner::rules_table(p.rules, registry);
  for (const std::string& why : cct::disabled_rules(p)) std::cout << "LEFT OUT: " << why << "\n";
  return 0;
}

int explain(const std::string& profile_file, const std::string& collective,
            const std::string& bytes, const std::string& datatype, cct::tools::ExplainQuery q,
            const cct::Registry& registry) {
  if (!cct::parse_collective(collective, &q.collective))
    throw cct::Error("unknown collective '" + collective + "'", CCT_ERR_INVALID_ARG);
  if (!datatype.empty() && !cct::parse_datatype(datatype, &q.dtype))
    throw cct::Error("unknown element type '" + datatype +
                         "' (int8, int16, int32, int64, uint8 ... uint64, float, double)",
                     CCT_ERR_INVALID_ARG);
  if (q.root < 0 || q.root >= q.np)
    throw cct::Error("--root " + std::to_string(q.root) + " is not a rank of " +
                         std::to_string(q.np) + " (0.." + std::to_string(q.np - 1) + ")",
                     CCT_ERR_INVALID_ARG);
  const std::optional<int64_t> size = cct::parse_bytes(bytes);
  if (!size)
    throw cct::Error("expected a size (64, 4k, 1M), got '" + bytes + "'", CCT_ERR_INVALID_ARG);
  q.bytes = *size;
  std::string path = profile_file;
  bool off = false;
  if (path.empty()) {
    const cct::Topology here = cct::Topology::discover();
    const cct::ProfileChoice choice =
        cct::choose_profile(cct::MachineIdentity{here.fingerprints(), here.summary()});
    path = choice.path;
    off = choice.off();
  }
  q.profile_off = off;
  cct::Profile profile;
  if (off)
    std::cout << "no profile (" << cct::kProfileOff
              << "): only CCT_FORCE and the built-in defaults\n";
  else if (path.empty())
    std::cout << "no profile for this machine: only CCT_FORCE, then the MPI library's own calls "
                 "in an MPI program, else the built-in defaults\n";
  else
    profile = cct::load_profile(path, &registry, cct::RuleProblems::kDisableRule);
  std::vector<std::string> skipped;
  const char* force_text = std::getenv("CCT_FORCE");
  const auto force = cct::parse_force(force_text ? force_text : "", &registry, &skipped);
  if (!path.empty()) std::cout << "profile " << path << "\n";
  for (const std::string& s : skipped) std::cout << "note: " << s << "; that rule is ignored\n";
  for (const std::string& line : cct::tools::explain(profile, force, registry, q))
    std::cout << line << "\n";
  return 0;
}

int diff(const std::string& a, const std::string& b, const cct::Registry& registry) {
  const auto lines = cct::tools::diff_profiles(
      cct::load_profile(a, &registry, cct::RuleProblems::kDisableRule),
      cct::load_profile(b, &registry, cct::RuleProblems::kDisableRule), registry);
  for (const std::string& line : lines) std::cout << line << "\n";
  if (lines.empty())
    std::cout << "the two profiles choose alike everywhere\n";
  else
    std::cout << lines.size() << " differences, "
              << std::ranges::count_if(lines,
                                       [](const std::string& line) {
                                         return line.find(cct::tools::kBeyondNoise) !=
                                                std::string::npos;
                                       })
              << " of them " << cct::tools::kBeyondNoise << " by the second's figures\n";
  return lines.empty() ? 0 : 1;
}

int merge(const std::string& a, const std::string& b, const std::string& out,
          const cct::Registry& registry) {
  // Strict: a merged profile must not carry a rule the runtime would drop.
  const cct::Profile merged = cct::tools::merge_profiles(cct::load_profile(a, &registry),
                                                         cct::load_profile(b, &registry), a, b);
  cct::save_profile(merged, out);
  std::cout << out << ": " << a << " with " << b << "'s shapes\n";
  return 0;
}

// The machine of a results file: that of the profile ccautotune wrote
// beside it (<fingerprint>.yaml next to <fingerprint>.csv); unknown (empty)
// without one.
cct::MachineInfo machine_of(const std::string& results, const cct::Registry& registry) {
  const std::string profile = cct::tuner::profile_beside(results);
  if (!std::filesystem::exists(profile)) return {};
  return cct::load_profile(profile, &registry, cct::RuleProblems::kDisableRule).machine;
}

// The communicator shapes ccprofile check takes: those of np ranks and
// spanning `nodes` nodes, where given.
struct ShapeFilter {
  std::optional<int> np, nodes;

  bool takes(const cct::tuner::ResultRow& r) const {
    return (!np || r.np == *np) && (!nodes || r.nodes == *nodes);
  }
  // " at np=8 on 4 nodes", or "".
  std::string text() const {
    return (np ? " at np=" + std::to_string(*np) : "") +
           (nodes ? " on " + std::to_string(*nodes) + " node(s)" : "");
  }
};

// How the profile's choices do on measurements (of shapes its rules were
// predicted for, say), each call's rule taken as the runtime takes it:
// one line, and where the results have points timed at the last root, two
// more (with the profile's rules of roots other than 0, and with root 0's
// alone); status 0.
int check(const std::string& file, const std::string& results, const ShapeFilter& shapes,
          double within_percent, const cct::Registry& registry) {
  const cct::Profile profile = cct::load_profile(file, &registry);
  std::vector<cct::tuner::ResultRow> rows = cct::tuner::read_results(results);
  std::erase_if(rows, [&](const cct::tuner::ResultRow& r) { return !shapes.takes(r); });
  const std::string at = shapes.text();
  const double tolerance = within_percent / 100;
  std::cout << cct::tuner::describe(
                   cct::tuner::measured_accuracy(rows, profile, registry, tolerance),
                   "measured points" + at)
            << "\n";
  const cct::tuner::Accuracy own =
      cct::tuner::root_accuracy(rows, profile, registry, false, tolerance);
  if (own.checked == 0) return 0;
  const cct::tuner::Accuracy root_zero =
      cct::tuner::root_accuracy(rows, profile, registry, true, tolerance);
  std::cout << cct::tuner::describe(own, "points timed at the last root" + at) << "\n"
            << cct::tuner::describe(root_zero, "the same with root 0's rules") << "\n";
  return 0;
}

int report(const std::string& results, const std::string& bench, std::string out,
           const std::string& made_by, const cct::Registry& registry) {
  if (!std::filesystem::exists(results))
    throw cct::Error("no results file " + results, CCT_ERR_INVALID_ARG);
  cct::tuner::ReportInput input{.rows = cct::tuner::read_results(results),
                                .results = results,
                                .machine = machine_of(results, registry),
                                .made_by = made_by};
  if (input.rows.empty()) throw cct::Error(results + ": no rows", CCT_ERR_INVALID_ARG);
  if (!bench.empty()) {
    input.bench = cct::tuner::read_bench(bench);
    input.bench_source = bench;
  }
  if (out.empty()) out = std::filesystem::path(results).replace_extension(".html").string();
  std::ofstream file(out);
  cct::tuner::write_report(input, registry, file);
  file.close();
  if (!file) throw cct::Error("cannot write " + out);
  std::cout << "report: " << out << "\n";
  return 0;
}

std::string command_line(int argc, char** argv) {
  std::string text = "ccprofile";
  for (int i = 1; i < argc; ++i) text += std::string(" ") + argv[i];
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Look at a ccautotune profile before using it: validate, show, explain, diff, merge; "
      "check it against measurements; report on the results it was built from."};
  app.set_version_flag("--version", "ccprofile " CCT_VERSION);
  app.require_subcommand(1);
  std::vector<std::string> files;
  CLI::App* validate_cmd =
      app.add_subcommand("validate",
                         "check profiles as the runtime reads them; status 1 on any "
                         "problem, each with file:line");
  validate_cmd->add_option("FILE", files, "profile files")->required();
  std::string file, other;
  CLI::App* show_cmd = app.add_subcommand("show", "the profile's machine, settings and rules");
  show_cmd->add_option("FILE", file, "profile file")->required();
  std::string collective, bytes, datatype;
  cct::tools::ExplainQuery query;
  CLI::App* explain_cmd = app.add_subcommand(
      "explain", "which rule a call meets and what the runtime would run (CCT_FORCE included)");
  explain_cmd->add_option("COLLECTIVE", collective, "barrier, bcast, ... alltoall")->required();
  explain_cmd->add_option("BYTES", bytes, "message size as profiles count it (64, 4k, 1M)")
      ->required();
  explain_cmd->add_option("--np", query.np, "ranks of the communicator")
      ->check(cct::cli::positive());
  explain_cmd->add_option("--nodes", query.nodes, "nodes it spans")->check(cct::cli::positive());
  explain_cmd->add_option("--transport", query.transport, "shm or mpi");
  explain_cmd->add_option("--datatype", datatype,
                          "a reduction's element type (int32, float, double, ...), for the "
                          "profile's rules of that type");
  explain_cmd->add_option("--root", query.root,
                          "a rooted collective's root (0..np-1), for the profile's rules of "
                          "roots other than 0");
  explain_cmd->add_option("--profile", file, "profile file (default: the runtime's choice here)");
  CLI::App* diff_cmd = app.add_subcommand(
      "diff", "the size ranges where two profiles choose differently; status 1 if any");
  diff_cmd->add_option("A", file, "first profile")->required();
  diff_cmd->add_option("B", other, "second profile")->required();
  std::string merged;
  CLI::App* merge_cmd = app.add_subcommand(
      "merge", "one profile of two of the same machine: B's shapes (node counts) replace A's");
  merge_cmd->add_option("A", file, "base profile")->required();
  merge_cmd->add_option("B", other, "profile whose shapes are added")->required();
  merge_cmd->add_option("--out", merged, "the merged profile's file")->required();
  std::string results;
  ShapeFilter check_shapes;
  CLI::App* check_cmd = app.add_subcommand(
      "check",
      "how the profile's choices compare with the fastest at each point of a results file");
  check_cmd->add_option("FILE", file, "profile file")->required();
  check_cmd->add_option("RESULTS", results, "results file (<fingerprint>.csv)")->required();
  check_cmd->add_option("--np", check_shapes.np, "only the points of communicators of this size")
      ->check(cct::cli::positive());
  check_cmd
      ->add_option("--nodes", check_shapes.nodes,
                   "only the points of communicators spanning this many nodes")
      ->check(cct::cli::positive());
  double within_percent = 5;
  check_cmd
      ->add_option("--within", within_percent,
                   "a choice this close to the fastest counts as right (default 5)")
      ->check(CLI::Range(0.0, 100.0))
      ->type_name("PERCENT");
  std::string bench, report_out;
  CLI::App* report_cmd = app.add_subcommand(
      "report", "an HTML page of a ccautotune results file: plots of every collective and shape");
  report_cmd->add_option("RESULTS", file, "results file (<fingerprint>.csv)")->required();
  report_cmd->add_option("--bench", bench, "a ccbench output: add its ratios to MPI");
  report_cmd->add_option("-o,--out", report_out, "the page (default: RESULTS as .html)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ccprofile: " << e.what() << "\nrun 'ccprofile --help' for usage\n";
    return 2;
  }
  cct::Registry registry;
  registry.load_default();
  try {
    if (*validate_cmd) return validate(files, registry);
    if (*show_cmd) return show(file, registry);
    if (*explain_cmd) return explain(file, collective, bytes, datatype, query, registry);
    if (*merge_cmd) return merge(file, other, merged, registry);
    if (*check_cmd) return check(file, results, check_shapes, within_percent, registry);
    if (*report_cmd) return report(file, bench, report_out, command_line(argc, argv), registry);
    return diff(file, other, registry);
  } catch (const cct::Error& e) {
    std::cerr << "ccprofile: " << e.what() << "\n";
    return 2;
  }
}
