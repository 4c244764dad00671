#include "cct/session.hpp"

#include <unistd.h>

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

Runtime::Log log_level() {
  const std::string v = env_or_empty("CCT_LOG");
  if (v.empty() || v == "off" || v == "0") return Runtime::Log::kOff;
  if (v == "info") return Runtime::Log::kInfo;
  if (v == "debug") return Runtime::Log::kDebug;
  throw Error("CCT_LOG='" + v + "': expected off, info or debug", CCT_ERR_INVALID_ARG);
}

// rank 0 lists what the selector left out, and says when there is no
// profile (each once per process).
Selector make_selector(const SessionBasis& basis, const std::string& transport,
                       const Communicator& comm) {
  Selector selector(basis.profile, basis.force, basis.registry, transport, comm.size(),
                    comm.nodes());
  if (comm.rank() != 0) return selector;
  if (!basis.profile_found)
    basis.warn_once("no profile for this machine (fingerprint " + basis.topology.fingerprint() +
                    ") in CCT_PROFILE_PATH or the profile directories; using built-in defaults "
                    "(run ccautotune to make one)");
  for (const auto& w : selector.warnings()) basis.warn_once(w);
  return selector;
}

}  // namespace

void SessionBasis::warn_once(const std::string& text) const {
  const std::lock_guard<std::mutex> lock(warned_mutex_);
  if (warned_.insert(text).second) std::cerr << "cct: " << text << "\n";
}

SessionBasis::SessionBasis() : topology(Topology::discover()) {}

// CCT_PROFILE names the file; else the profile whose fingerprint is this
// machine's.
std::shared_ptr<const SessionBasis> SessionBasis::load() {
  std::shared_ptr<SessionBasis> basis(new SessionBasis());
  basis->registry.load_default();
  std::string path = env_or_empty("CCT_PROFILE");
  if (path.empty()) path = find_profile_for(basis->topology.fingerprint(), profile_dirs());
  if (!path.empty()) {
    basis->profile = load_profile(path, &basis->registry);
    basis->profile_found = true;
  }
  basis->force = parse_force(env_or_empty("CCT_FORCE"), &basis->registry);
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
  const TransportEntry* entry = basis_->registry.find_transport(transport);
  if (entry == nullptr)
    throw Error("the " + transport +
                    " transport plugin was not found (searched CCT_PLUGIN_PATH and the plugin "
                    "directory beside libcct); run ccinfo to see what was loaded",
                CCT_ERR_UNSUPPORTED);
  const Topology& topology = basis_->topology;
  int pu = topology.bound_pu();
  if (binding == Binding::kBindToPu) {
    pu = topology.pu_for_rank(boot_->rank(), boot_->size());
    if (!topology.bind_to_pu(pu)) pu = -1;
  }
  auto instance = std::make_shared<TransportInstance>(*entry, *boot_);
  comm_ = std::make_shared<Communicator>(*boot_, instance, topology, pu,
                                         placement_of(*boot_, basis_->registry));
  runtime_ = std::make_unique<Runtime>(basis_->registry, comm_,
                                       Runtime::Options{.stats = print_stats_, .log = log_level()},
                                       make_selector(*basis_, transport, *comm_));
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
