// The baseline broadcast library: cct_algorithms_v2 with its four broadcasts.
#include "bcast/binomial.hpp"
#include "bcast/chain.hpp"
#include "bcast/knomial.hpp"
#include "bcast/scatter_allgather.hpp"

using cct::plugins::bcast::Binomial;
using cct::plugins::bcast::Chain;
using cct::plugins::bcast::Knomial;
using cct::plugins::bcast::ScatterAllgather;

CCT_SDK_EXPORT_ALGORITHMS(Binomial, Knomial, ScatterAllgather, Chain)
