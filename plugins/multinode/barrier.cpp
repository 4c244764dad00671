#include "barrier/central_counter.hpp"
#include "barrier/dissemination.hpp"
#include "barrier/recursive_doubling.hpp"
#include "multinode/multinode.hpp"
#include "shared_cache_barrier/dual_queue.hpp"
#include "shared_cache_barrier/multilevel.hpp"

namespace cct::plugins::multinode {
namespace {

std::unique_ptr<Sub> make_inner(int64_t inner, const sdk::Comm& group) {
  switch (inner) {
    case 0: return make_sub<shared_cache_barrier::Multilevel>(group);
    case 1: return make_sub<shared_cache_barrier::DualQueue>(group);
    case 2: return make_sub<barrier::CentralCounter>(group);
    default: return make_sub<barrier::Dissemination>(group);
  }
}

std::unique_ptr<Sub> make_outer(int64_t outer, const sdk::Comm& leaders) {
  if (outer == 0) return make_sub<barrier::Dissemination>(leaders);
  return make_sub<barrier::RecursiveDoubling>(leaders);
}

int checked_level(const sdk::Comm& comm, std::span<const int64_t> params) {
  const int level = split_level(*comm.raw(), params[0]);
  check_choice("inner", params[1], Barrier::kInner.size());
  check_choice("outer", params[2], Barrier::kOuter.size());
  return level;
}

}  // namespace

void Barrier::check(const sdk::Comm& comm, const cct_coll_args&, std::span<const int64_t> params) {
  checked_level(comm, params);
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
