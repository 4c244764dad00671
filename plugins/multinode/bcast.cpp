#include "bcast/binomial.hpp"
#include "bcast/chain.hpp"
#include "bcast/knomial.hpp"
#include "bcast/scatter_allgather.hpp"
#include "common/rooted.hpp"
#include "multinode/multinode.hpp"
#include "multinode/phases.hpp"

namespace cct::plugins::multinode {
namespace {

// f.template operator()<A>() with the class A that `outer` picks.
template <class F>
auto with_outer(int64_t outer, F f) {
  switch (outer) {
    case 0: return f.template operator()<bcast::Binomial>();
    case 1: return f.template operator()<bcast::Knomial>();
    case 2: return f.template operator()<bcast::ScatterAllgather>();
    default: return f.template operator()<bcast::Chain>();
  }
}

std::unique_ptr<Sub> make_outer(int64_t outer, const sdk::Comm& leaders) {
  return with_outer(outer, [&]<class A>() { return make_sub<A>(leaders); });
}

int checked_level(const sdk::Comm& comm, std::span<const int64_t> params) {
  const int level = split_level(*comm.raw(), params[0]);
  check_choice("inner", params[1], Bcast::kInner.size());
  check_choice("outer", params[2], Bcast::kOuter.size());
  return level;
}

}  // namespace

void Bcast::check(const sdk::Comm& comm, const cct_coll_args&, std::span<const int64_t> params) {
  require_nodes(*comm.raw());
  checked_level(comm, params);
}

// The leaders' bcast from the root, then the group's from its acting rank.
// Across the halves: the leaders' bcast's crossings, and the group's in
// each group that spans both halves (cost_phases.hpp).
cct_cost Bcast::cost(const sdk::Comm& comm, const cct_coll_args& args,
                     std::span<const int64_t> params) {
  const int level = checked_level(comm, params);
  if (rooted_bytes(args, comm.size()) == 0) return {};
  const GroupShape group(comm, level);
  const LeadersShape leaders(comm, level);
  const cct_coll_args outer =
      phase(args, CCT_BCAST, nullptr, nullptr, args.count, comm.level(level).group_of(args.root));
  const cct_coll_args inner = phase(args, CCT_BCAST, nullptr, nullptr, args.count, 0);
  return sdk::CostShape()
      .then(with_outer(params[2], [&]<class A>() { return phase_cost<A>(leaders, outer); }))
      .then(with_bcast(params[1], [&]<class A>() { return phase_cost<A>(group, inner); }));
}

Bcast::Bcast(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), split_(comm, checked_level(comm, params)) {
  if (!split_.alone()) inner_ = make_bcast(params[1], sdk::Comm(split_.group().raw()));
  leaders_ = std::make_unique<sdk::LeadersComm>(*comm.raw(), split_.level());
  outer_ = make_outer(params[2], sdk::Comm(leaders_->raw()));
}

// The root acts for its group among the leaders (see multinode.hpp), so
// the outer phase starts from the root at once; the root's group gets the
// buffer from the root in the inner phase, after the root handed it on
// across the network (the longer way, so it goes first).
void Bcast::run(const cct_coll_args& args) {
  if (rooted_bytes(args, comm_.size()) == 0) return;
  const int root_group = split_.group_of(args.root);
  const int group = split_.group_of(comm_.rank());
  leaders_->reset_members();
  leaders_->set_member(root_group, args.root);
  const int acting = leaders_->member(group);
  if (acting == comm_.rank())
    outer_->run(phase(args, CCT_BCAST, nullptr, args.recvbuf, args.count, root_group));
  if (inner_)
    inner_->run(
        phase(args, CCT_BCAST, nullptr, args.recvbuf, args.count, split_.index_in_group(acting)));
}

}  // namespace cct::plugins::multinode
