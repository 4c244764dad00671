// A communicator (ranks, an open transport, topology levels) and algorithm
// plans prepared on it.
#include "cct/communicator.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>
#include <sstream>

#include "cct/error.hpp"

namespace cct {
namespace {

bool in_place(const cct_coll_args& a) {
  return a.sendbuf == CCT_IN_PLACE || a.recvbuf == CCT_IN_PLACE;
}

std::string qualified(const AlgorithmEntry& alg) {
  return std::string(collective_name(alg.desc->collective)) + "/" + alg.desc->name;
}

// probe() is local, so ranks may differ (one rank's environment, a plugin
// that judges by the rank's own state); were they to act on their own
// verdicts, the ranks that open would wait in open() for one that does not.
// So the ranks agree on them first, and all refuse if one does, naming it.
// open() then keeps ranks together itself (the ABI's contract: on failure
// every rank returns an error).
void agree_on_probe(const TransportEntry& entry, Bootstrap& boot, const cct_bootstrap* c_boot) {
  cct_error err{};
  const bool refused = entry.desc->probe(c_boot, &err) != CCT_OK;
  agree(boot, refused ? std::string(err.message, strnlen(err.message, sizeof err.message)) : "",
        std::string("transport '") + entry.desc->name + "' cannot serve this job",
        CCT_ERR_UNSUPPORTED);
}

}  // namespace

TransportInstance::TransportInstance(const TransportEntry& entry, Bootstrap& boot,
                                     std::shared_ptr<TransportInstance> host)
    : entry_(entry), host_(std::move(host)) {
  const cct_bootstrap* c_boot = boot.c_view(entry.abi_version, host_ ? host_->raw() : nullptr);
  agree_on_probe(entry, boot, c_boot);
  cct_error err{};
  if (cct_status s = entry.desc->open(c_boot, &inst_, &err); s != CCT_OK)
    throw Error(std::string("transport '") + entry.desc->name + "' failed to open: " + err.message,
                s);
}

TransportInstance::~TransportInstance() {
  entry_.desc->close(inst_);
}

// The levels then assume that every node has this one's shape.
NodePlacement placement_of(const Bootstrap& boot, const Registry& registry) {
  if (boot.nodes() == 1) return {};
  const TransportEntry* shm = registry.find_transport("shm");
  if (shm == nullptr)
    throw Error("the ranks span " + std::to_string(boot.nodes()) +
                    " nodes and the shm transport plugin, used inside each node, was not found",
                CCT_ERR_UNSUPPORTED);
  return {.node = boot.node(), .local = shm};
}

Communicator::Communicator(Bootstrap& boot, std::shared_ptr<TransportInstance> transport,
                           const Topology& topo, int my_pu, NodePlacement placement)
    : transport_(std::move(transport)) {
  std::vector<int> pus(boot.size());
  boot.allgather(&my_pu, pus.data(), sizeof(int));
  std::vector<int> node_of_rank(boot.size());
  boot.allgather(&placement.node, node_of_rank.data(), sizeof(int));
  nodes_ = static_cast<int>(std::set<int>(node_of_rank.begin(), node_of_rank.end()).size());
  if (placement.local == nullptr || nodes_ == 1) node_of_rank.clear(), nodes_ = 1;
  levels_ = topo.levels_for(pus, node_of_rank);
  for (const auto& l : levels_) c_levels_.push_back(cct_level{l.kind, l.groups, l.group_of.data()});
  if (nodes_ > 1) open_level_transports(boot, *placement.local);
  comm_ = cct_comm{.struct_size = sizeof(cct_comm),
                   .abi_version = CCT_ABI_VERSION,
                   .rank = boot.rank(),
                   .size = boot.size(),
                   .transport = transport_->raw(),
                   .nlevels = static_cast<int32_t>(c_levels_.size()),
                   .levels = c_levels_.data(),
                   .level_transport = level_transport_.empty() ? nullptr : level_transport_.data(),
                   .library = boot.library(),
                   .timeout_s = boot.timeout_s()};
}

uint64_t Communicator::capabilities() const {
  return transport_->raw()->capabilities | (comm_.library != nullptr ? CCT_CAP_LIBRARY : 0);
}

// Every level of a communicator split by node lies inside a node, so the
// local transport serves each of its groups. The groups of all levels open
// side by side, level by level (a color per level and group keeps their
// job keys apart); a group of one rank gets none. A group that fails to
// open fails every rank, so that none waits for the others.
void Communicator::open_level_transports(Bootstrap& boot, const TransportEntry& local) {
  const int size = boot.size();
  for (std::size_t i = 0; i < levels_.size(); ++i) {
    const int group = levels_[i].group_of[boot.rank()];
    std::unique_ptr<Bootstrap> sub = split_bootstrap(boot, static_cast<int>(i) * size + group);
    std::string failure;
    try {
      // A group of one rank opens too and closes again at once: the split
      // bootstrap's operations are the parent's, so every rank must go
      // through the same ones (one that skipped the open would meet the
      // others' allgathers with its own next one).
      auto opened = std::make_unique<TransportInstance>(local, *sub);
      if (sub->size() == 1) opened.reset();
      level_instances_.push_back(std::move(opened));
    } catch (const Error& e) {
      failure = e.what();
    }
    std::vector<char> failed(size);
    const char mine = failure.empty() ? 0 : 1;
    boot.allgather(&mine, failed.data(), 1);
    if (!failure.empty()) throw Error(failure, CCT_ERR_TRANSPORT);
    if (const auto r = std::find(failed.begin(), failed.end(), 1); r != failed.end())
      throw Error(std::string("the ") + local.desc->name +
                      " transport of a node level failed on rank " +
                      std::to_string(r - failed.begin()),
                  CCT_ERR_TRANSPORT);
    level_transport_.push_back(level_instances_.back() ? level_instances_.back()->raw() : nullptr);
  }
}

std::string why_unusable(const AlgorithmEntry& alg, const Communicator& comm,
                         const cct_coll_args& args, std::span<const int64_t> params) {
  const cct_algorithm_desc& d = *alg.desc;
  const uint64_t granted = comm.capabilities();
  const int n = comm.size();
  std::ostringstream os;
  const uint64_t missing = d.required_caps & ~granted;
  if (missing == CCT_CAP_LIBRARY)
    os << "needs a collective library (it runs inside MPI programs only)";
  else if (missing != 0)
    os << "needs transport capabilities {" << capability_names(missing) << "} that '"
       << comm.transport().entry().desc->name << "' does not grant";
  else if (n < d.min_ranks || (d.max_ranks > 0 && n > d.max_ranks))
    os << "runs on " << d.min_ranks << ".." << (d.max_ranks ? std::to_string(d.max_ranks) : "any")
       << " ranks, not " << n;
  else if ((d.limits & CCT_LIMIT_POW2_ONLY) && !std::has_single_bit(static_cast<unsigned>(n)))
    os << "needs a power-of-two number of ranks, not " << n;
  else if (in_place(args) && !(d.limits & CCT_LIMIT_IN_PLACE))
    os << "does not support the in-place form";
  else if ((d.limits & CCT_LIMIT_NEEDS_LEVELS) && comm.raw()->nlevels == 0)
    os << "needs a topology hierarchy and this communicator is flat";
  else if (params.size() != d.nparams)
    os << "takes " << d.nparams << " parameters, got " << params.size();
  if (!os.str().empty()) return os.str();
  cct_error why{};
  if (alg.can_use(comm.raw(), &args, params.data(), &why) != CCT_OK) return why.message;
  return "";
}

Plan::Plan(const AlgorithmEntry& alg, const Communicator& comm, std::vector<int64_t> params)
    : alg_(alg), params_(std::move(params)) {
  if (params_.size() != alg_.desc->nparams)
    throw Error(qualified(alg_) + " takes " + std::to_string(alg_.desc->nparams) +
                    " parameters, got " + std::to_string(params_.size()),
                CCT_ERR_INVALID_ARG);
  cct_error err{};
  if (cct_status s = alg_.prepare(comm.raw(), params_.data(), &plan_, &err); s != CCT_OK)
    throw Error(qualified(alg_) + ": prepare failed: " + err.message, s);
}

Plan::~Plan() {
  alg_.destroy(plan_);
}

void Plan::run(const cct_coll_args& args) {
  cct_error err;  // an empty message, not 256 zeroed bytes: this is on every call's path
  err.message[0] = '\0';
  if (cct_status s = alg_.run(plan_, &args, &err); s != CCT_OK)
    throw Error(qualified(alg_) + " failed: " + err.message, s);
}

}  // namespace cct
