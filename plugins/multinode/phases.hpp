// The phases the multinode algorithms choose by parameter, one table for
// all of them: the reduce of `inner` or `outer` (0 = binomial,
// 1 = rabenseifner, 2 = chain) and the bcast inside a group (0 = binomial,
// any other = two_level, the shared-memory pipe).
#pragma once

#include <memory>

#include "bcast/binomial.hpp"
#include "common/cost_phases.hpp"
#include "hierarchical/two_level_bcast.hpp"
#include "multinode/multinode.hpp"
#include "reduce/binomial.hpp"
#include "reduce/chain.hpp"
#include "reduce/rabenseifner.hpp"

namespace cct::plugins::multinode {

// f.template operator()<A>() with the reduce class A that `which` picks.
template <class F>
auto with_reduce(int64_t which, F f) {
  switch (which) {
    case 0: return f.template operator()<reduce::Binomial>();
    case 1: return f.template operator()<reduce::Rabenseifner>();
    default: return f.template operator()<reduce::Chain>();
  }
}

// f.template operator()<A>() with the bcast class A that `which` picks.
template <class F>
auto with_bcast(int64_t which, F f) {
  if (which == 0) return f.template operator()<bcast::Binomial>();
  return f.template operator()<hierarchical::TwoLevelBcast>();
}

inline std::unique_ptr<Sub> make_reduce(int64_t which, const sdk::Comm& comm) {
  return with_reduce(which, [&]<class A>() { return make_sub<A>(comm); });
}

inline std::unique_ptr<Sub> make_bcast(int64_t which, const sdk::Comm& group) {
  return with_bcast(which, [&]<class A>() { return make_sub<A>(group); });
}

}  // namespace cct::plugins::multinode
