// The scatterv library, exported as libcct_scatterv.
#include "scatterv/linear.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::scatterv::Linear)
