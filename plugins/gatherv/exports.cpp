// The gatherv library, exported as libcct_gatherv.
#include "gatherv/binomial.hpp"
#include "gatherv/linear.hpp"
#include "gatherv/linear_throttled.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::gatherv::Linear, cct::plugins::gatherv::LinearThrottled,
                          cct::plugins::gatherv::Binomial)
