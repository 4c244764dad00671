// The alltoall baselines, exported as libcct_alltoall_baseline.
#include "alltoall/bruck.hpp"
#include "alltoall/linear_throttled.hpp"
#include "alltoall/pairwise.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::alltoall::Pairwise, cct::plugins::alltoall::Bruck,
                          cct::plugins::alltoall::LinearThrottled)
