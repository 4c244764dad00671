// The baseline scatter library: cct_algorithms_v2 with its three scatters.
#include "scatter/binomial.hpp"
#include "scatter/linear.hpp"
#include "scatter/linear_throttled.hpp"

using cct::plugins::scatter::Binomial;
using cct::plugins::scatter::Linear;
using cct::plugins::scatter::LinearThrottled;

CCT_SDK_EXPORT_ALGORITHMS(Linear, Binomial, LinearThrottled)
