#include "device/alltoall_pdbp.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cct::plugins::device {
namespace {

int flows_of(std::span<const int64_t> p) {
  if (p[0] < 1)
    throw std::invalid_argument("device_pdbp: flows must be >= 1 (got " + std::to_string(p[0]) +
                                ")");
  return static_cast<int>(std::min<int64_t>(p[0], 1 << 20));
}

}  // namespace

void AlltoallPdbp::check(const sdk::Comm&, const cct_coll_args&, std::span<const int64_t> p) {
  flows_of(p);
}

// `flows` exchanges in flight at a time (alltoall_flows.hpp).
cct_cost AlltoallPdbp::cost(const sdk::Comm& comm, const cct_coll_args& a,
                            std::span<const int64_t> params) {
  return AlltoallFlows::cost(comm, a, flows_of(params), StagingChunk(params[1]).bytes());
}

AlltoallPdbp::AlltoallPdbp(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), chunk_(params[1]), exchange_(comm, flows_of(params)) {}

void AlltoallPdbp::run(const cct_coll_args& a) {
  chunk_.apply(comm_);
  exchange_.run(a);
}

}  // namespace cct::plugins::device
