// rapidio_sim: runs a cct_sim_job, one fiber per rank, and gives each rank
// a bootstrap whose collectives are rendezvous between the fibers (out of
// band: no packets, no virtual time).
#include "rapidio_sim/job.hpp"

#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace cct::rio {
namespace {

thread_local Job* tl_job = nullptr;

// One rank's bootstrap: its rendezvous keys count its bootstrap calls, which
// every rank makes in the same order, so the n-th call of each rank meets
// the n-th call of the others.
struct RankBootstrap {
  cct_bootstrap c{};
  Engine* engine = nullptr;
  uint64_t calls = 0;
  std::string key;
};

cct_status boot_allgather(void* ctx, const void* send, void* recv, size_t bytes) {
  auto& b = *static_cast<RankBootstrap*>(ctx);
  b.engine->rendezvous(b.calls++, b.c.rank, b.c.size, send, recv, bytes);
  return CCT_OK;
}

cct_status boot_barrier(void* ctx) {
  return boot_allgather(ctx, nullptr, nullptr, 0);
}

std::vector<RankBootstrap> bootstraps(Engine& engine, int ranks) {
  const FabricSpec& spec = engine.fabric();
  std::vector<RankBootstrap> boots(ranks);
  for (int r = 0; r < ranks; ++r) {
    RankBootstrap& b = boots[r];
    b.engine = &engine;
    b.key = "rio-" + std::to_string(r);
    b.c = cct_bootstrap{.struct_size = sizeof(cct_bootstrap),
                        .abi_version = CCT_ABI_VERSION,
                        .rank = r,
                        .size = ranks,
                        .node = r / spec.dsps_per_board,
                        .nodes = (ranks + spec.dsps_per_board - 1) / spec.dsps_per_board,
                        .job_key = "rio-job",
                        .ctx = &b,
                        .allgather = boot_allgather,
                        .barrier = boot_barrier,
                        .mpi_comm = nullptr};
  }
  return boots;
}

FabricSpec fabric_of(const cct_sim_job& job) {
  try {
    return load_fabric(job.config ? job.config : "");
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(std::string("rapidio_sim: ") + e.what());
  }
}

void describe_into(const FabricSpec& spec, cct_sim_job& job) {
  const std::string text = describe_fabric(spec);
  if (text.size() >= sizeof job.description)
    throw std::invalid_argument("rapidio_sim: the fabric's description (" +
                                std::to_string(text.size()) + " bytes) exceeds " +
                                std::to_string(sizeof job.description - 1));
  std::memcpy(job.description, text.c_str(), text.size() + 1);
}

int ranks_of(const cct_sim_job& job, const FabricSpec& spec) {
  const int ranks = job.ranks == 0 ? spec.dsps() : job.ranks;
  if (ranks < 1 || ranks > spec.dsps())
    throw std::invalid_argument("rapidio_sim: fabric '" + spec.name + "' has " +
                                std::to_string(spec.dsps()) + " DSPs; the job asks for " +
                                std::to_string(job.ranks) + " ranks");
  return ranks;
}

// "rank 3: deadlock: ...; rank 5: ..." for the failures the engine saw
// (deadlocks, exceptions) and the ranks whose rank_main returned non-zero.
std::string failures_text(const std::vector<Engine::Failure>& failures,
                          const std::vector<int>& status) {
  std::ostringstream out;
  for (const Engine::Failure& f : failures) out << "rank " << f.rank << ": " << f.what << "; ";
  for (std::size_t r = 0; r < status.size(); ++r)
    if (status[r] != 0) out << "rank " << r << " failed (status " << status[r] << "); ";
  std::string text = out.str();
  if (!text.empty()) text.resize(text.size() - 2);
  return text;
}

void run_job(cct_sim_job& job) {
  if (tl_job != nullptr)
    throw std::invalid_argument("rapidio_sim: a simulated job cannot start another inside it");
  const FabricSpec spec = fabric_of(job);
  describe_into(spec, job);
  if (job.ranks == -1) return;
  const int ranks = ranks_of(job, spec);
  if (job.rank_main == nullptr) throw std::invalid_argument("rapidio_sim: job without rank_main");
  Engine engine(spec);
  Job state{engine};
  std::vector<RankBootstrap> boots = bootstraps(engine, ranks);
  std::vector<int> status(ranks, 0);
  tl_job = &state;
  std::vector<Engine::Failure> failures;
  try {
    failures = engine.run(ranks, [&](int r) { status[r] = job.rank_main(job.ctx, &boots[r].c); });
  } catch (...) {
    tl_job = nullptr;
    throw;
  }
  tl_job = nullptr;
  if (std::string why = failures_text(failures, status); !why.empty())
    throw sdk::TransportError(CCT_ERR_TRANSPORT, "rapidio_sim: " + why);
}

}  // namespace

Job* current_job() {
  return tl_job;
}

cct_status simulate(cct_sim_job* job, cct_error* err) {
  return sdk::guarded(err, [&] {
    if (job == nullptr || job->abi_version != CCT_ABI_VERSION ||
        job->struct_size < sizeof(cct_sim_job))
      throw sdk::TransportError(CCT_ERR_ABI, "rapidio_sim: a cct_sim_job this plugin cannot read");
    run_job(*job);
  });
}

}  // namespace cct::rio
