// The allgather baselines, exported as libcct_allgather_baseline.
#include "allgather/bruck.hpp"
#include "allgather/recursive_doubling.hpp"
#include "allgather/ring.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::allgather::Ring, cct::plugins::allgather::RecursiveDoubling,
                          cct::plugins::allgather::Bruck)
