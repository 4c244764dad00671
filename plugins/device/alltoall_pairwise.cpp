#include "device/alltoall_pairwise.hpp"

namespace cct::plugins::device {

// One exchange in flight at a time (alltoall_flows.hpp).
cct_cost AlltoallPairwise::cost(const sdk::Comm& comm, const cct_coll_args& a,
                                std::span<const int64_t> params) {
  return AlltoallFlows::cost(comm, a, 1, StagingChunk(params[0]).bytes());
}

AlltoallPairwise::AlltoallPairwise(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), chunk_(params[0]), exchange_(comm, 1) {}

void AlltoallPairwise::run(const cct_coll_args& a) {
  chunk_.apply(comm_);
  exchange_.run(a);
}

}  // namespace cct::plugins::device
