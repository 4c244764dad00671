// The alltoallv library, exported as libcct_alltoallv.
#include "alltoallv/linear.hpp"
#include "alltoallv/pairwise.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::alltoallv::Pairwise, cct::plugins::alltoallv::Linear)
