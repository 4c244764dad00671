// The reduce baselines, exported as libcct_reduce_baseline.
#include "reduce/binomial.hpp"
#include "reduce/chain.hpp"
#include "reduce/rabenseifner.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::reduce::Binomial, cct::plugins::reduce::Rabenseifner,
                          cct::plugins::reduce::Chain)
