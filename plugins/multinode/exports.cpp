// The multinode library: cct_algorithms_v2 with one `multinode` algorithm
// per collective (barrier, bcast, reduce, allreduce, allgather): shared
// memory inside a node, p2p between the nodes' leaders.
#include "multinode/multinode.hpp"

using cct::plugins::multinode::Allgather;
using cct::plugins::multinode::Allreduce;
using cct::plugins::multinode::Barrier;
using cct::plugins::multinode::Bcast;
using cct::plugins::multinode::Reduce;

CCT_SDK_EXPORT_ALGORITHMS(Barrier, Bcast, Reduce, Allreduce, Allgather)
