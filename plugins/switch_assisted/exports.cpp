// The switch-assisted library: cct_algorithms_v2 with its four algorithms.
#include "switch_assisted/counter_barrier.hpp"
#include "switch_assisted/switch_bcast.hpp"
#include "switch_assisted/switch_gather.hpp"
#include "switch_assisted/switch_reduce.hpp"

using cct::plugins::switch_assisted::CounterBarrier;
using cct::plugins::switch_assisted::SwitchBcast;
using cct::plugins::switch_assisted::SwitchGather;
using cct::plugins::switch_assisted::SwitchReduce;

CCT_SDK_EXPORT_ALGORITHMS(SwitchBcast, SwitchGather, SwitchReduce, CounterBarrier)
