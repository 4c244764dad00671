// The multinode library: cct_algorithms_v2 with one `multinode` algorithm
// per collective (barrier, bcast, reduce, allreduce, allgather,
// reduce_scatter_block, reduce_scatter, allgatherv): shared
// memory inside a node, p2p between the nodes' leaders.
#include "multinode/multinode.hpp"

using cct::plugins::multinode::Allgather;
using cct::plugins::multinode::Allgatherv;
using cct::plugins::multinode::Allreduce;
using cct::plugins::multinode::Barrier;
using cct::plugins::multinode::Bcast;
using cct::plugins::multinode::Reduce;
using cct::plugins::multinode::ReduceScatter;

CCT_SDK_EXPORT_ALGORITHMS(Barrier, Bcast, Reduce, Allreduce, Allgather,
                          ReduceScatter<CCT_REDUCE_SCATTER_BLOCK>,
                          ReduceScatter<CCT_REDUCE_SCATTER>, Allgatherv)
