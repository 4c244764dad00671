// The PDBP library: cct_algorithms_v2 with the pdbp alltoall.
#include "pdbp/pdbp_alltoall.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::pdbp::PdbpAlltoall)
