// The gatherv library, exported as libcct_gatherv.
#include "gatherv/linear.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::gatherv::Linear)
