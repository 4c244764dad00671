#include "common/rooted.hpp"
#include "multinode/multinode.hpp"
#include "multinode/phases.hpp"

namespace cct::plugins::multinode {
namespace {

int checked_level(const sdk::Comm& comm, std::span<const int64_t> params) {
  const int level = split_level(*comm.raw(), params[0]);
  check_choice("inner", params[1], Reduce::kInner.size());
  check_choice("outer", params[2], Reduce::kInner.size());
  return level;
}

}  // namespace

void Reduce::check(const sdk::Comm& comm, const cct_coll_args&, std::span<const int64_t> params) {
  require_nodes(*comm.raw());
  checked_level(comm, params);
}

// The group's reduce to its acting rank, then the leaders' to the root.
// Across the halves: the group's reduce's crossings in each group that
// spans both halves, and the leaders' (cost_phases.hpp).
cct_cost Reduce::cost(const sdk::Comm& comm, const cct_coll_args& args,
                      std::span<const int64_t> params) {
  const int level = checked_level(comm, params);
  if (rooted_bytes(args, comm.size()) == 0) return {};
  const GroupShape group(comm, level);
  const LeadersShape leaders(comm, level);
  const cct_coll_args inner = phase(args, CCT_REDUCE, nullptr, nullptr, args.count, 0);
  const cct_coll_args outer =
      phase(args, CCT_REDUCE, nullptr, nullptr, args.count, comm.level(level).group_of(args.root));
  return sdk::CostShape()
      .then(with_reduce(params[1], [&]<class A>() { return phase_cost<A>(group, inner); }))
      .then(with_reduce(params[2], [&]<class A>() { return phase_cost<A>(leaders, outer); }));
}

Reduce::Reduce(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), split_(comm, checked_level(comm, params)) {
  if (!split_.alone()) inner_ = make_reduce(params[1], sdk::Comm(split_.group().raw()));
  leaders_ = std::make_unique<sdk::LeadersComm>(*comm.raw(), split_.level());
  outer_ = make_reduce(params[2], sdk::Comm(leaders_->raw()));
}

// The root acts for its group (see multinode.hpp): its group reduces to it,
// in place in the outer phase, and the result lands in its receive buffer
// with no further hop. Another group's leader reduces its group into
// scratch and hands that to the outer phase. Only the root may pass
// CCT_IN_PLACE; its input is then in recvbuf, which the inner reduce (or,
// alone in its group, the outer one) reads as such.
void Reduce::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  const int me = comm_.rank();
  const bool root = me == args.root;
  const int root_group = split_.group_of(args.root);
  leaders_->reset_members();
  leaders_->set_member(root_group, args.root);
  const int acting = leaders_->member(split_.group_of(me));
  const void* outer_input = args.sendbuf;  // alone: this rank's own input (or CCT_IN_PLACE)
  if (inner_) {
    void* result = nullptr;
    if (me == acting) result = root ? args.recvbuf : partial_.get(bytes);
    inner_->run(
        phase(args, CCT_REDUCE, args.sendbuf, result, args.count, split_.index_in_group(acting)));
    outer_input = root ? CCT_IN_PLACE : result;
  }
  if (me == acting)
    outer_->run(phase(args, CCT_REDUCE, outer_input, root ? args.recvbuf : nullptr, args.count,
                      root_group));
}

}  // namespace cct::plugins::multinode
