#include "allreduce/rabenseifner.hpp"
#include "allreduce/recursive_doubling.hpp"
#include "allreduce/ring.hpp"
#include "common/args.hpp"
#include "multinode/multinode.hpp"
#include "multinode/phases.hpp"

namespace cct::plugins::multinode {
namespace {

// f.template operator()<A>() with the class A that `outer` picks.
template <class F>
auto with_outer(int64_t outer, F f) {
  switch (outer) {
    case 0: return f.template operator()<allreduce::RecursiveDoubling>();
    case 1: return f.template operator()<allreduce::Ring>();
    default: return f.template operator()<allreduce::Rabenseifner>();
  }
}

std::unique_ptr<Sub> make_outer(int64_t outer, const sdk::Comm& leaders) {
  return with_outer(outer, [&]<class A>() { return make_sub<A>(leaders); });
}

int checked_level(const sdk::Comm& comm, std::span<const int64_t> params) {
  const int level = split_level(*comm.raw(), params[0]);
  check_choice("inner", params[1], Allreduce::kInner.size());
  check_choice("outer", params[2], Allreduce::kInner.size());
  return level;
}

}  // namespace

void Allreduce::check(const sdk::Comm& comm, const cct_coll_args&,
                      std::span<const int64_t> params) {
  require_nodes(*comm.raw());
  checked_level(comm, params);
}

// The group's reduce to its leader, the leaders' allreduce (in place after
// a group's reduce), and the group's bcast, one after another. Across the
// halves: the leaders' phase's crossings, and a group phase's in each group
// that spans both halves (cost_phases.hpp).
cct_cost Allreduce::cost(const sdk::Comm& comm, const cct_coll_args& args,
                         std::span<const int64_t> params) {
  const int level = checked_level(comm, params);
  if (args.count == 0) return {};
  const GroupShape group(comm, level);
  const LeadersShape leaders(comm, level);
  const cct_coll_args reduce = phase(args, CCT_REDUCE, nullptr, nullptr, args.count, 0);
  const cct_coll_args outer =
      phase(args, CCT_ALLREDUCE, group.size() > 1 ? CCT_IN_PLACE : nullptr, nullptr, args.count, 0);
  const cct_coll_args bcast = phase(args, CCT_BCAST, nullptr, nullptr, args.count, 0);
  return sdk::CostShape()
      .then(with_reduce(params[1], [&]<class A>() { return phase_cost<A>(group, reduce); }))
      .then(with_outer(params[2], [&]<class A>() { return phase_cost<A>(leaders, outer); }))
      .then(with_bcast(params[1], [&]<class A>() { return phase_cost<A>(group, bcast); }));
}

// The group's reduce and bcast are prepared in this order on every member,
// so their shared regions are allocated in the same order on all of them.
Allreduce::Allreduce(const sdk::Comm& comm, std::span<const int64_t> params)
    : split_(comm, checked_level(comm, params)) {
  if (!split_.alone()) {
    const sdk::Comm group(split_.group().raw());
    reduce_ = make_reduce(params[1], group);
    bcast_ = make_bcast(params[1], group);
  }
  if (split_.leads()) {
    leaders_ = std::make_unique<sdk::LeadersComm>(*comm.raw(), split_.level());
    outer_ = make_outer(params[2], sdk::Comm(leaders_->raw()));
  }
}

// The leader reduces its group into its receive buffer (in place when the
// call is), the leaders allreduce those in place, and the leader
// broadcasts the result in its group. A member hands its input to the
// group's reduce as a plain send buffer (only a root may pass CCT_IN_PLACE).
// The group's reduce and bcast share its transport and the call's tag
// (split.hpp: Tags).
void Allreduce::run(const cct_coll_args& args) {
  if (args.count == 0) return;
  const bool leads = split_.leads();
  if (reduce_)
    reduce_->run(phase(args, CCT_REDUCE, leads ? args.sendbuf : input_of(args),
                       leads ? args.recvbuf : nullptr, args.count, 0));
  if (outer_)
    outer_->run(phase(args, CCT_ALLREDUCE, reduce_ ? CCT_IN_PLACE : args.sendbuf, args.recvbuf,
                      args.count, 0));
  if (bcast_) bcast_->run(phase(args, CCT_BCAST, nullptr, args.recvbuf, args.count, 0));
}

}  // namespace cct::plugins::multinode
