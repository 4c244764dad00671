#include "hpl_bcast/one_ring_m.hpp"

namespace cct::plugins::hpl {

void Hpl1RingM::check(const sdk::Comm&, const cct_coll_args&, std::span<const int64_t> params) {
  validate_segment(params[0]);
}

cct_cost Hpl1RingM::cost(const sdk::Comm& comm, const cct_coll_args& args,
                         std::span<const int64_t> params) {
  return SegmentRelay::cost(RingShape::kOneModified, comm, args, params[0]);
}

Hpl1RingM::Hpl1RingM(const sdk::Comm& comm, std::span<const int64_t> params)
    : relay_(comm, params[0]) {}

void Hpl1RingM::run(const cct_coll_args& args) {
  relay_.run(RingShape::kOneModified, args);
}

}  // namespace cct::plugins::hpl
