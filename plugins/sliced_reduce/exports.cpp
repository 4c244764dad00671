// The sliced reductions: cct_algorithms_v2 with the shared-memory reduce and
// allreduce in which every rank reduces its own slice.
#include "sliced_reduce/sliced_reduce.hpp"

using cct::plugins::sliced_reduce::SlicedAllreduce;
using cct::plugins::sliced_reduce::SlicedReduce;

CCT_SDK_EXPORT_ALGORITHMS(SlicedReduce, SlicedAllreduce)
