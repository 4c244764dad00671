// The scatterv library, exported as libcct_scatterv.
#include "scatterv/binomial.hpp"
#include "scatterv/linear.hpp"
#include "scatterv/linear_throttled.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::scatterv::Linear, cct::plugins::scatterv::LinearThrottled,
                          cct::plugins::scatterv::Binomial)
