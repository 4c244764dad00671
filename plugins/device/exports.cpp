// The device-memory algorithms, exported as libcct_device_algorithms.
#include "device/allgather_ring.hpp"
#include "device/allreduce_ring.hpp"
#include "device/alltoall_pairwise.hpp"
#include "device/alltoall_pdbp.hpp"
#include "device/bcast_binomial.hpp"
#include "device/reduce_binomial.hpp"
#include "device/reduce_scatter_block_ring.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::device::AllreduceRing,
                          cct::plugins::device::ReduceScatterBlockRing,
                          cct::plugins::device::AllgatherRing, cct::plugins::device::BcastBinomial,
                          cct::plugins::device::ReduceBinomial,
                          cct::plugins::device::AlltoallPairwise,
                          cct::plugins::device::AlltoallPdbp)
