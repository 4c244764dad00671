// The baseline gather library: cct_algorithms_v2 with its three gathers.
#include "gather/binomial.hpp"
#include "gather/linear.hpp"
#include "gather/linear_throttled.hpp"

using cct::plugins::gather::Binomial;
using cct::plugins::gather::Linear;
using cct::plugins::gather::LinearThrottled;

CCT_SDK_EXPORT_ALGORITHMS(Linear, Binomial, LinearThrottled)
