#include "hpl_bcast/one_ring.hpp"

namespace cct::plugins::hpl {

void Hpl1Ring::check(const sdk::Comm&, const cct_coll_args&, std::span<const int64_t> params) {
  validate_segment(params[0]);
}

cct_cost Hpl1Ring::cost(const sdk::Comm& comm, const cct_coll_args& args,
                        std::span<const int64_t> params) {
  return SegmentRelay::cost(RingShape::kOne, comm, args, params[0]);
}

Hpl1Ring::Hpl1Ring(const sdk::Comm& comm, std::span<const int64_t> params)
    : relay_(comm, params[0]) {}

void Hpl1Ring::run(const cct_coll_args& args) {
  relay_.run(RingShape::kOne, args);
}

}  // namespace cct::plugins::hpl
