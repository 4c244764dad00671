#include "hpl_bcast/two_ring_m.hpp"

namespace cct::plugins::hpl {

void Hpl2RingM::check(const sdk::Comm&, const cct_coll_args&, std::span<const int64_t> params) {
  validate_segment(params[0]);
}

cct_cost Hpl2RingM::cost(const sdk::Comm& comm, const cct_coll_args& args,
                         std::span<const int64_t> params) {
  return SegmentRelay::cost(RingShape::kTwoModified, comm, args, params[0]);
}

Hpl2RingM::Hpl2RingM(const sdk::Comm& comm, std::span<const int64_t> params)
    : relay_(comm, params[0]) {}

void Hpl2RingM::run(const cct_coll_args& args) {
  relay_.run(RingShape::kTwoModified, args);
}

}  // namespace cct::plugins::hpl
