// The phases the multinode algorithms choose by parameter, one table for
// all of them: the reduce of `inner` or `outer` (0 = binomial,
// 1 = rabenseifner, 2 = chain) and the bcast inside a group (0 = binomial,
// any other = two_level, the shared-memory pipe).
#pragma once

#include <memory>

#include "bcast/binomial.hpp"
#include "hierarchical/two_level_bcast.hpp"
#include "multinode/multinode.hpp"
#include "reduce/binomial.hpp"
#include "reduce/chain.hpp"
#include "reduce/rabenseifner.hpp"

namespace cct::plugins::multinode {

inline std::unique_ptr<Sub> make_reduce(int64_t which, const sdk::Comm& comm) {
  switch (which) {
    case 0: return make_sub<reduce::Binomial>(comm);
    case 1: return make_sub<reduce::Rabenseifner>(comm);
    default: return make_sub<reduce::Chain>(comm);
  }
}

inline std::unique_ptr<Sub> make_bcast(int64_t which, const sdk::Comm& group) {
  if (which == 0) return make_sub<bcast::Binomial>(group);
  return make_sub<hierarchical::TwoLevelBcast>(group);
}

}  // namespace cct::plugins::multinode
