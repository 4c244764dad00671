// The PDBP library: cct_algorithms_v2 with the pdbp alltoall and alltoallv.
#include "pdbp/pdbp_alltoall.hpp"
#include "pdbp/pdbp_alltoallv.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::pdbp::PdbpAlltoall, cct::plugins::pdbp::PdbpAlltoallv)
