#include "hpl_bcast/two_ring.hpp"

namespace cct::plugins::hpl {

void Hpl2Ring::check(const sdk::Comm&, const cct_coll_args&, std::span<const int64_t> params) {
  validate_segment(params[0]);
}

cct_cost Hpl2Ring::cost(const sdk::Comm& comm, const cct_coll_args& args,
                        std::span<const int64_t> params) {
  return SegmentRelay::cost(RingShape::kTwo, comm, args, params[0]);
}

Hpl2Ring::Hpl2Ring(const sdk::Comm& comm, std::span<const int64_t> params)
    : relay_(comm, params[0]) {}

void Hpl2Ring::run(const cct_coll_args& args) {
  relay_.run(RingShape::kTwo, args);
}

}  // namespace cct::plugins::hpl
