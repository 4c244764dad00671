// The allgatherv library, exported as libcct_allgatherv.
#include "allgatherv/ring.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::allgatherv::Ring)
