// Jobs on a simulated platform: the host side of cct_sim_job.
#include "cct/simulate.hpp"

#include <cstddef>
#include <cstdlib>
#include <exception>
#include <map>
#include <sstream>

#include "cct/error.hpp"
#include "cct/topology.hpp"
#include "fingerprint_hash.hpp"

namespace cct {
namespace {

// The rank's side of the bootstrap the simulator hands to rank_main.
class SimulatedBootstrap final : public Bootstrap {
 public:
  explicit SimulatedBootstrap(const cct_bootstrap& c) : c_(c) {}
  int rank() const override { return c_.rank; }
  int size() const override { return c_.size; }
  int node() const override { return c_.node; }
  int nodes() const override { return c_.nodes; }
  std::string job_key() const override { return c_.job_key; }
  void allgather(const void* send, void* recv, std::size_t bytes) override {
    if (c_.allgather(c_.ctx, send, recv, bytes) != CCT_OK)
      throw Error("simulated bootstrap: allgather failed", CCT_ERR_TRANSPORT);
  }
  void barrier() override {
    if (c_.barrier(c_.ctx) != CCT_OK)
      throw Error("simulated bootstrap: barrier failed", CCT_ERR_TRANSPORT);
  }

 private:
  cct_bootstrap c_;
};

struct JobState {
  const std::function<int(Bootstrap&)>* body;
  std::map<int, std::string> failures;  // rank -> why
};

int rank_main(void* ctx, const cct_bootstrap* c_boot) {
  auto& job = *static_cast<JobState*>(ctx);
  try {
    SimulatedBootstrap boot(*c_boot);
    const int status = (*job.body)(boot);
    if (status != 0) job.failures[c_boot->rank] = "exited with status " + std::to_string(status);
    return status;
  } catch (const std::exception& e) {
    job.failures[c_boot->rank] = e.what();
  } catch (...) {
    job.failures[c_boot->rank] = "unknown exception";
  }
  return 1;
}

cct_sim_job make_job(int ranks, const std::string& config) {
  cct_sim_job job{};
  job.struct_size = sizeof(cct_sim_job);
  job.abi_version = CCT_ABI_VERSION;
  job.ranks = ranks;
  job.config = config.c_str();
  return job;
}

void require_simulated(const TransportEntry& transport) {
  if (!is_simulated(transport))
    throw Error(std::string("transport '") + transport.desc->name +
                    "' does not simulate a platform (it runs between real processes)",
                CCT_ERR_INVALID_ARG);
}

// sim came later within ABI version 1: an instance written before it ends
// where sim would begin.
const cct_sim_ops* sim_ops(const TransportInstance& transport) {
  const cct_transport_instance* inst = transport.raw();
  if (inst->struct_size < offsetof(cct_transport_instance, sim) + sizeof inst->sim) return nullptr;
  return inst->sim;
}

}  // namespace

bool is_simulated(const TransportEntry& transport) {
  const cct_transport_desc* d = transport.desc;
  return d->struct_size >= offsetof(cct_transport_desc, simulate) + sizeof d->simulate &&
         d->simulate != nullptr;
}

SimulatedPlatform describe_simulated(const TransportEntry& transport, const std::string& config) {
  require_simulated(transport);
  cct_sim_job job = make_job(-1, config);
  cct_error err{};
  if (cct_status s = transport.desc->simulate(&job, &err); s != CCT_OK)
    throw Error(std::string(transport.desc->name) + ": " + err.message, s);
  return {job.description, fingerprint_of(job.description)};
}

LaunchResult launch_simulated(const TransportEntry& transport, const SimulateOptions& opts,
                              const std::function<int(Bootstrap&)>& body) {
  require_simulated(transport);
  JobState state{&body, {}};
  cct_sim_job job = make_job(opts.ranks, opts.config);
  job.ctx = &state;
  job.rank_main = rank_main;
  cct_error err{};
  const cct_status s = transport.desc->simulate(&job, &err);
  std::ostringstream why;
  for (const auto& [rank, what] : state.failures) why << "rank " << rank << ": " << what << "; ";
  if (s != CCT_OK) why << transport.desc->name << ": " << err.message;
  std::string error = why.str();
  if (error.ends_with("; ")) error.resize(error.size() - 2);
  return {error.empty(), error};
}

std::shared_ptr<Communicator> simulated_communicator(const TransportEntry& transport,
                                                     Bootstrap& boot) {
  // Unbound ranks make no levels whatever the topology; this one is small.
  static const Topology flat = Topology::synthetic("pu:1");
  auto instance = std::make_shared<TransportInstance>(transport, boot);
  return std::make_shared<Communicator>(boot, std::move(instance), flat, -1);
}

Selector simulated_selector(const Registry& registry, const TransportEntry& transport,
                            const SimulatedPlatform& platform, int size) {
  const std::string path = choose_profile(platform.fingerprint).path;
  const Profile profile = path.empty() ? Profile{} : load_profile(path, &registry);
  const char* force = std::getenv("CCT_FORCE");
  return Selector(profile, parse_force(force ? force : "", &registry), registry,
                  transport.desc->name, size);
}

std::optional<double> virtual_now(const TransportInstance& transport) {
  const cct_sim_ops* sim = sim_ops(transport);
  if (sim == nullptr) return std::nullopt;
  return sim->now(transport.raw());
}

bool quiesce(const TransportInstance& transport) {
  const cct_sim_ops* sim = sim_ops(transport);
  if (sim == nullptr || sim->struct_size < offsetof(cct_sim_ops, quiesce) + sizeof sim->quiesce ||
      sim->quiesce == nullptr)
    return false;
  cct_error err{};
  if (sim->quiesce(transport.raw(), &err) != CCT_OK)
    throw Error(std::string("quiesce: ") + err.message, CCT_ERR_TRANSPORT);
  return true;
}

std::string simulation_stats(const TransportInstance& transport) {
  const cct_sim_ops* sim = sim_ops(transport);
  if (sim == nullptr) return "";
  std::string text(sim->stats(transport.raw(), nullptr, 0) + 1, '\0');
  text.resize(sim->stats(transport.raw(), text.data(), text.size()));
  return text;
}

}  // namespace cct
