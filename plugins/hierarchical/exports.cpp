// The hierarchical library: cct_algorithms_v2 with the seed's two-level
// bcast, allgather and allgatherv and the NUMA-aware allreduce.
#include "hierarchical/numa_allreduce.hpp"
#include "hierarchical/two_level_allgather.hpp"
#include "hierarchical/two_level_bcast.hpp"

using cct::plugins::hierarchical::NumaAllreduce;
using cct::plugins::hierarchical::TwoLevelAllgather;
using cct::plugins::hierarchical::TwoLevelBcast;

CCT_SDK_EXPORT_ALGORITHMS(TwoLevelBcast, TwoLevelAllgather<CCT_ALLGATHER>,
                          TwoLevelAllgather<CCT_ALLGATHERV>, NumaAllreduce)
