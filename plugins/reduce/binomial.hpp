#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::reduce {

// Binomial-tree reduce. The latency-optimal baseline: ceil(log2 n) steps, the
// fewest possible, but every step moves the whole vector, so the root takes
// in log2(n) full vectors and the time grows as log2(n) * bytes. It wins for
// small messages, where the per-message cost dominates; Rabenseifner and the
// pipelined chain take over as the vector grows.
class Binomial {
 public:
  static constexpr sdk::Info info{
      .name = "binomial",
      .doc = "binomial tree toward the root: log2(n) steps of the whole vector",
      .collective = CCT_REDUCE,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Binomial(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  const std::byte* add_child(const cct_coll_args& a, std::size_t bytes, const std::byte* data,
                             int child);

  sdk::Comm comm_;
  Scratch scratch_;
};

}  // namespace cct::plugins::reduce
