// k-nomial-tree broadcast.
//
// A binomial tree generalised to radix k: a rank hands the buffer to up to
// k - 1 children per level, so the tree is ceil(log_k p) levels deep instead
// of ceil(log2 p). The k - 1 sends of a level leave together, so when a
// transport overlaps several sends (shared memory with idle cores, a NIC
// with several engines) a level costs little more than one send and the
// shallower tree wins for small and medium messages. Where sends serialise,
// each level costs k - 1 sends and radix 2 (binomial) is best; the tuner
// picks the radix.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::bcast {

class Knomial {
 public:
  static constexpr cct::sdk::Info info{
      .name = "knomial",
      .doc = "k-nomial tree, ceil(log_radix p) levels of up to radix-1 sends each",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };
  static constexpr std::array<int64_t, 4> kRadixCandidates{2, 3, 4, 8};
  static constexpr std::array<cct_param_desc, 1> params{{{
      .name = "radix",
      .doc = "children per level of the tree (2 = binomial)",
      .type = CCT_PARAM_INT,
      .default_value = 4,
      .candidates = kRadixCandidates.data(),
      .ncandidates = kRadixCandidates.size(),
      .lo = 0,
      .hi = 0,
      .step = 0,
      .step_kind = CCT_STEP_ADD,
  }}};

  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Knomial(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  cct::sdk::Comm comm_;
  int64_t radix_;
  std::vector<cct_request> sends_;  // one per child
};

}  // namespace cct::plugins::bcast
