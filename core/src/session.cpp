#include "cct/session.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "cct/error.hpp"
#include "cct/launcher.hpp"
#include "cct/profile.hpp"

namespace cct {
namespace {

// The bootstrap of a job of one rank: nothing to exchange.
class SoloBootstrap final : public Bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string job_key() const override { return "cct-" + std::to_string(getpid()) + "-solo"; }
  void allgather(const void* send, void* recv, std::size_t bytes) override {
    if (bytes > 0) std::memcpy(recv, send, bytes);
  }
  void barrier() override {}
};

bool env_is_on(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// CCT_LOG, in any case; a value it does not know leaves the log off.
Runtime::Log log_level(std::vector<std::string>* problems) {
  const std::string v = lower(env_or_empty("CCT_LOG"));
  if (v.empty() || v == "off" || v == "0") return Runtime::Log::kOff;
  if (v == "info") return Runtime::Log::kInfo;
  if (v == "debug") return Runtime::Log::kDebug;
  problems->push_back("CCT_LOG='" + env_or_empty("CCT_LOG") +
                      "': expected off, info or debug; the log stays off");
  return Runtime::Log::kOff;
}

// CCT_TIMEOUT: seconds, a positive number; unset, empty or 0: no deadline.
double timeout_seconds(std::vector<std::string>* problems) {
  const std::string text = env_or_empty("CCT_TIMEOUT");
  if (text.empty()) return 0;
  double seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(seconds) &&
      seconds >= 0)
    return seconds;
  problems->push_back("CCT_TIMEOUT='" + text +
                      "': expected seconds, e.g. 30 or 0.5 (0: no deadline); collectives wait "
                      "without a deadline");
  return 0;
}

// The profile in effect and where it came from, for CCT_LOG=info, and a
// warning when it was tuned on another machine.
void tell_profile(const SessionBasis& basis) {
  const ProfileChoice& choice = basis.profile_choice;
  if (!basis.profile_found && !choice.path.empty()) return;  // unreadable: a problem
  if (choice.off()) {
    if (basis.log != Runtime::Log::kOff)
      basis.warn_once("no profile (" + std::string(kProfileOff) +
                      "): built-in defaults everywhere");
    return;
  }
  if (!basis.profile_found) {
    basis.warn_once("no profile for this machine (fingerprint " + basis.topology.fingerprint() +
                    ") nor for one of its kind in CCT_PROFILE_PATH or the profile directories; "
                    "using the MPI library's own collectives in an MPI program, else built-in "
                    "defaults (run ccautotune to make one)");
    return;
  }
  const MachineInfo& tuned = basis.profile.machine;
  const std::vector<std::string> mine = basis.topology.fingerprints();
  const std::string machines = "(fingerprint " + tuned.fingerprint + ", " + tuned.summary +
                               "); this one is " + basis.topology.fingerprint() + " (" +
                               basis.topology.summary() + ")";
  if (choice.similar)
    basis.warn_once(
        "no profile for this machine's fingerprint; profile " + choice.path +
        " was tuned on a machine of the same kind " + machines + ", differing in " +
        choice.differences +
        ": its rules are used as they were tuned (run ccautotune for this machine's own, or "
        "ccautotune --from-results with that machine's results file to adjust them to this "
        "one by the cost model, measuring nothing)");
  else if (std::find(mine.begin(), mine.end(), tuned.fingerprint) == mine.end())
    basis.warn_once("profile " + choice.path + " was tuned on another machine " + machines +
                    ": its rules may not fit");
  if (basis.log != Runtime::Log::kOff)
    basis.warn_once("profile " + choice.path + " (" + choice.why + "), tuned " +
                    basis.profile.date);
}

// Rank 0 of the communicator lists what the selector left out (once per
// process), and the process that speaks for the job says what the
// environment got wrong and which profile is in effect.
Selector make_selector(const SessionBasis& basis, const std::string& transport,
                       const Communicator& comm) {
  Selector selector(basis.profile, basis.force, basis.registry, transport, comm.size(),
                    comm.nodes());
  if (comm.rank() != 0) return selector;
  if (basis.speaks) {
    for (const auto& p : basis.problems) basis.warn_once(p);
    tell_profile(basis);
  }
  for (const auto& w : selector.warnings()) basis.warn_once(w);
  return selector;
}

}  // namespace

// One string, one write: ranks sharing a stream must not interleave their
// lines ("cct: cct: rank 1: ..." was seen).
void SessionBasis::warn_once(const std::string& text) const {
  const std::lock_guard<std::mutex> lock(warned_mutex_);
  if (warned_.insert(text).second) std::cerr << ("cct: " + text + "\n") << std::flush;
}

SessionBasis::SessionBasis() : topology(Topology::discover()) {}

// CCT_PROFILE names the file; else the profile whose fingerprint is this
// machine's.
std::shared_ptr<const SessionBasis> SessionBasis::load(bool speaks) {
  std::shared_ptr<SessionBasis> basis(new SessionBasis());
  basis->speaks = speaks;
  basis->registry.load_default();
  basis->problems = basis->registry.warnings();
  basis->profile_choice =
      choose_profile(MachineIdentity{basis->topology.fingerprints(), basis->topology.summary()});
  if (const std::string& path = basis->profile_choice.path; !path.empty()) {
    try {
      basis->profile = load_profile(path, &basis->registry, RuleProblems::kDisableRule);
      basis->profile_found = true;
    } catch (const Error& e) {
      basis->problems.push_back(std::string(e.what()) +
                                "; the profile is not used: the MPI library's own collectives in "
                                "an MPI program, else built-in defaults");
    }
  }
  std::vector<std::string> skipped;
  basis->force = parse_force(env_or_empty("CCT_FORCE"), &basis->registry, &skipped);
  for (const std::string& s : skipped)
    basis->problems.push_back(s + "; that rule is ignored, the other CCT_FORCE rules apply");
  basis->log = log_level(&basis->problems);
  basis->timeout_s = timeout_seconds(&basis->problems);
  return basis;
}

std::unique_ptr<Session> Session::from_environment() {
  std::unique_ptr<Bootstrap> boot = bootstrap_from_environment();
  if (!boot) boot = std::make_unique<SoloBootstrap>();
  return std::make_unique<Session>(std::move(boot));
}

Session::Session(std::unique_ptr<Bootstrap> boot, Binding binding, const std::string& transport,
                 std::shared_ptr<const SessionBasis> basis)
    : basis_(basis ? std::move(basis) : SessionBasis::load()),
      boot_(std::move(boot)),
      print_stats_(env_is_on("CCT_STATS")) {
  // What a rank lacks by itself (a node set up differently) is agreed on
  // before anything collective, so that no rank waits for one that stopped.
  const TransportEntry* entry = basis_->registry.find_transport(transport);
  std::string missing;
  NodePlacement placement;
  if (entry == nullptr)
    missing = "the " + transport +
              " transport plugin was not found (searched CCT_PLUGIN_PATH and the plugin "
              "directory beside libcct); run ccinfo to see what was loaded";
  else
    try {
      placement = placement_of(*boot_, basis_->registry);
    } catch (const Error& e) {
      missing = e.what();
    }
  agree(*boot_, missing, "the runtime cannot start", CCT_ERR_UNSUPPORTED);
  const Topology& topology = basis_->topology;
  int pu = topology.bound_pu();
  if (binding == Binding::kBindToPu) {
    pu = topology.pu_for_rank(boot_->rank(), boot_->size());
    if (!topology.bind_to_pu(pu)) pu = -1;
  }
  boot_->set_timeout_s(basis_->timeout_s);
  auto instance = std::make_shared<TransportInstance>(*entry, *boot_);
  comm_ = std::make_shared<Communicator>(*boot_, instance, topology, pu, placement);
  runtime_ = std::make_unique<Runtime>(
      basis_->registry, comm_,
      Runtime::Options{.stats = print_stats_,
                       .log = basis_->log,
                       .label = boot_->label(),
                       .timeout_s = basis_->timeout_s,
                       .library_without_rule = !basis_->profile_choice.off()},
      make_selector(*basis_, transport, *comm_));
  open_device(instance, pu);
}

// A device transport (one that grants CCT_CAP_DEVICE: cuda) over the
// session's, where one is loaded and opens on every rank: calls on device
// buffers then run, by the profile's rules for that transport where all
// ranks pass device memory (Runtime::use_device). Where none opens they
// fail, each saying why; CCT_LOG=info says once which it is (rank 0). Its
// communicator opens no transports per level (the algorithms on device
// memory move their data by its p2p), and its rules are those of the
// session's shape.
void Session::open_device(const std::shared_ptr<TransportInstance>& host, int pu) {
  const bool log = basis_->log != Runtime::Log::kOff && boot_->rank() == 0;
  for (const TransportEntry& t : basis_->registry.transports()) {
    if (!(t.desc->capabilities & CCT_CAP_DEVICE)) continue;
    try {
      auto on_device = std::make_shared<Communicator>(
          *boot_, std::make_shared<TransportInstance>(t, *boot_, host), basis_->topology, pu);
      runtime_->use_device(on_device, make_selector(*basis_, t.desc->name, *comm_));
    } catch (const Error& e) {
      if (log)
        basis_->warn_once(std::string("device buffers: the ") + t.desc->name +
                          " transport is not used: " + e.what());
      continue;
    }
    if (log)
      basis_->warn_once(std::string("device buffers go through the ") + t.desc->name +
                        " transport");
    return;
  }
}

std::vector<StatsRow> Session::take_stats() {
  if (!print_stats_ || runtime_->rank() != 0) return {};
  print_stats_ = false;
  return runtime_->stats_rows();
}

// The table goes out in one write, so that the tables of several processes
// sharing a terminal or a launcher's stream do not interleave line by line.
Session::~Session() {
  if (!print_stats_ || runtime_->rank() != 0) return;
  std::ostringstream table;
  runtime_->print_stats(table);
  std::cerr << table.str() << std::flush;
}

}  // namespace cct
