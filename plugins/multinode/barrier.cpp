#include "barrier/central_counter.hpp"
#include "barrier/dissemination.hpp"
#include "barrier/recursive_doubling.hpp"
#include "common/cost_phases.hpp"
#include "multinode/multinode.hpp"
#include "shared_cache_barrier/dual_queue.hpp"
#include "shared_cache_barrier/multilevel.hpp"

namespace cct::plugins::multinode {
namespace {

// f.template operator()<A>() with the class A that `inner` picks.
template <class F>
auto with_inner(int64_t inner, F f) {
  switch (inner) {
    case 0: return f.template operator()<shared_cache_barrier::Multilevel>();
    case 1: return f.template operator()<shared_cache_barrier::DualQueue>();
    case 2: return f.template operator()<barrier::CentralCounter>();
    default: return f.template operator()<barrier::Dissemination>();
  }
}

// f.template operator()<A>() with the class A that `outer` picks.
template <class F>
auto with_outer(int64_t outer, F f) {
  if (outer == 0) return f.template operator()<barrier::Dissemination>();
  return f.template operator()<barrier::RecursiveDoubling>();
}

std::unique_ptr<Sub> make_inner(int64_t inner, const sdk::Comm& group) {
  return with_inner(inner, [&]<class A>() { return make_sub<A>(group); });
}

std::unique_ptr<Sub> make_outer(int64_t outer, const sdk::Comm& leaders) {
  return with_outer(outer, [&]<class A>() { return make_sub<A>(leaders); });
}

int checked_level(const sdk::Comm& comm, std::span<const int64_t> params) {
  const int level = split_level(*comm.raw(), params[0]);
  check_choice("inner", params[1], Barrier::kInner.size());
  check_choice("outer", params[2], Barrier::kOuter.size());
  return level;
}

}  // namespace

void Barrier::check(const sdk::Comm& comm, const cct_coll_args&, std::span<const int64_t> params) {
  require_nodes(*comm.raw());
  checked_level(comm, params);
}

// The group's barrier, the leaders' and the group's again, one after another.
// Across the halves: what the phases state, the leaders' as is and a
// group's per group that spans both halves (cost_phases.hpp).
cct_cost Barrier::cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params) {
  const int level = checked_level(comm, params);
  const GroupShape group(comm, level);
  const LeadersShape leaders(comm, level);
  const cct_cost inner =
      with_inner(params[1], [&]<class A>() { return phase_cost<A>(group, args); });
  return sdk::CostShape()
      .then(inner)
      .then(with_outer(params[2], [&]<class A>() { return phase_cost<A>(leaders, args); }))
      .then(inner);
}

Barrier::Barrier(const sdk::Comm& comm, std::span<const int64_t> params)
    : split_(comm, checked_level(comm, params)) {
  if (!split_.alone()) inner_ = make_inner(params[1], sdk::Comm(split_.group().raw()));
  if (split_.leads()) {
    leaders_ = std::make_unique<sdk::LeadersComm>(*comm.raw(), split_.level());
    outer_ = make_outer(params[2], sdk::Comm(leaders_->raw()));
  }
}

// Every phase is a whole barrier with the call's tag; the group's two
// barriers follow each other over its transport (see split.hpp: Tags).
void Barrier::run(const cct_coll_args& args) {
  if (inner_) inner_->run(args);
  if (outer_) outer_->run(args);
  if (inner_) inner_->run(args);
}

}  // namespace cct::plugins::multinode
