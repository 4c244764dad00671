#include "pdbp/pdbp_alltoallv.hpp"

#include "alltoallv/blocks.hpp"

namespace cct::plugins::pdbp {

void PdbpAlltoallv::run(const cct_coll_args& a) {
  const int rank = comm_.rank();
  const alltoallv::Blocks blocks(a, comm_.size(), scratch_);
  copy_bytes(blocks.from(rank), blocks.to(rank), blocks.to_bytes(rank));
  exchange(blocks);
}

}  // namespace cct::plugins::pdbp
