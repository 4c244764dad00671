#pragma once

#include <cstdint>
#include <span>

#include "pdbp/pdbp_alltoall.hpp"

namespace cct::plugins::pdbp {

// PDBP for alltoallv: the flows of the PDBP alltoall (pdbp_alltoall.hpp)
// with each pair's own byte count. Its buffer policy was made for this:
// rows grow by utilisation and by the peer's receive/send ratio, so with
// unequal counts the pool's blocks go to the rows of the large blocks,
// while the pairwise alltoallv waits on the largest block at every step
// and the linear one buffers everything at once. An empty block costs no
// flow step at all.
class PdbpAlltoallv : public PdbpAlltoall {
 public:
  static constexpr sdk::Info info{
      .name = "pdbp",
      .doc = "per-peer slot rows over one block pool, grown by use, each pair's own counts",
      .collective = CCT_ALLTOALLV,
      .required_caps = CCT_CAP_SHM,
      .limits = CCT_LIMIT_IN_PLACE};

  using PdbpAlltoall::PdbpAlltoall;
  void run(const cct_coll_args& a);
};

}  // namespace cct::plugins::pdbp
