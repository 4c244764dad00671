#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/blocks.hpp"
#include "common/fold.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::reduce {

// Rabenseifner's reduce: a reduce-scatter by recursive halving, then a
// binomial gather of the reduced blocks to the root. Each rank sends and
// receives about 2 * bytes in all instead of log2(n) * bytes, and the
// reduction work is spread over all ranks, at the price of 2 * log2(n) steps
// (plus one when n is not a power of two: the extra ranks fold their vectors
// into a neighbour first). It wins for large vectors; binomial wins for small
// ones. Counts below the rank count leave some blocks empty, which costs
// empty messages but stays correct.
class Rabenseifner {
 public:
  static constexpr sdk::Info info{
      .name = "rabenseifner",
      .doc = "recursive-halving reduce-scatter + binomial gather to the root",
      .collective = CCT_REDUCE,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Rabenseifner(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  void gather_to_root(const Fold& fold, const Blocks& blocks, std::byte* acc, uint32_t tag) const;

  sdk::Comm comm_;
  Scratch scratch_;
};

}  // namespace cct::plugins::reduce
