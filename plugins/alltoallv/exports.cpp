// The alltoallv library, exported as libcct_alltoallv.
#include "alltoallv/linear.hpp"
#include "alltoallv/linear_throttled.hpp"
#include "alltoallv/pairwise.hpp"
#include "alltoallv/scheduled.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::alltoallv::Pairwise, cct::plugins::alltoallv::Linear,
                          cct::plugins::alltoallv::Scheduled,
                          cct::plugins::alltoallv::LinearThrottled)
