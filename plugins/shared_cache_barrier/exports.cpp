// The shared-cache barrier library: cct_algorithms_v2 with the multilevel
// one-queue barrier and the dual-queue barrier it improves on.
#include "shared_cache_barrier/dual_queue.hpp"
#include "shared_cache_barrier/multilevel.hpp"

using cct::plugins::shared_cache_barrier::DualQueue;
using cct::plugins::shared_cache_barrier::Multilevel;

CCT_SDK_EXPORT_ALGORITHMS(Multilevel, DualQueue)
