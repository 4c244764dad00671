// The allreduce baselines, exported as libcct_allreduce_baseline.
#include "allreduce/rabenseifner.hpp"
#include "allreduce/recursive_doubling.hpp"
#include "allreduce/ring.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::allreduce::RecursiveDoubling, cct::plugins::allreduce::Ring,
                          cct::plugins::allreduce::Rabenseifner)
