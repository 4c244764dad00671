// The allgatherv library, exported as libcct_allgatherv.
#include "allgatherv/bruck.hpp"
#include "allgatherv/gatherv_bcast.hpp"
#include "allgatherv/ring.hpp"

namespace allgatherv = cct::plugins::allgatherv;

CCT_SDK_EXPORT_ALGORITHMS(allgatherv::Ring, allgatherv::Bruck, allgatherv::GathervBcast)
