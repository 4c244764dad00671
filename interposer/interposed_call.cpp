#include "interposed_call.hpp"

#include <vector>

#include "calls.hpp"
#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/units.hpp"
#include "mpi_calls.hpp"

namespace cct::interposer {

std::unique_ptr<Runtime> runtime_of(const Registry& registry, const Communicator& comm,
                                    const AlgorithmEntry& alg, const std::vector<int64_t>& params,
                                    std::optional<int64_t> up_to) {
  const cct_collective c = alg.desc->collective;
  const std::string name = collective_name(c);
  std::string rule = name + ":0-" + (up_to ? std::to_string(*up_to + 1) : "max") + ":" +
                     format_choice(*alg.desc, params);
  if (up_to)
    rule += ";" + name + ":" + std::to_string(*up_to + 1) +
            "-max:" + collective_info(c).default_algorithm;
  Selector only(Profile{}, parse_force(rule, &registry), registry,
                comm.transport().entry().desc->name, comm.size(), comm.nodes());
  // Not owned: the caller's communicator outlives the runtime.
  std::shared_ptr<const Communicator> unowned(std::shared_ptr<const Communicator>(), &comm);
  return std::make_unique<Runtime>(registry, unowned, Runtime::Options{}, std::move(only));
}

const char* interposed(Runtime& rt, const cct_coll_args& a) {
  // A program passes its counts as int: converted before the call.
  thread_local std::vector<int> sc, sd, rc, rd;
  const int n = rt.size();
  const int* sendcounts = as_ints(a.sendcounts, n, sc);
  const int* sdispls = as_ints(a.sdispls, n, sd);
  const int* recvcounts = as_ints(a.recvcounts, n, rc);
  const int* rdispls = as_ints(a.rdispls, n, rd);
  const MPI_Datatype t = mpi_type(a.dtype);
  const MPI_Op op = mpi_op(a.op);
  const int count = static_cast<int>(a.count);
  const void* s = a.sendbuf;
  void* r = a.recvbuf;
  switch (a.collective) {
    case CCT_BARRIER: return barrier(rt);
    case CCT_BCAST: return bcast(rt, r, count, t, a.root);
    case CCT_GATHER: return gather(rt, s, count, t, r, count, t, a.root);
    case CCT_SCATTER: return scatter(rt, s, count, t, r, count, t, a.root);
    case CCT_REDUCE: return reduce(rt, s, r, count, t, op, a.root);
    case CCT_ALLREDUCE: return allreduce(rt, s, r, count, t, op);
    case CCT_ALLGATHER: return allgather(rt, s, count, t, r, count, t);
    case CCT_ALLTOALL: return alltoall(rt, s, count, t, r, count, t);
    case CCT_REDUCE_SCATTER_BLOCK: return reduce_scatter_block(rt, s, r, count, t, op);
    case CCT_REDUCE_SCATTER: return reduce_scatter(rt, s, r, recvcounts, t, op);
    case CCT_ALLGATHERV:
      return allgatherv(rt, s, recvcounts[rt.rank()], t, r, recvcounts, rdispls, t);
    case CCT_SCAN: return scan(rt, s, r, count, t, op);
    case CCT_EXSCAN: return exscan(rt, s, r, count, t, op);
    case CCT_GATHERV: return gatherv(rt, s, count, t, r, recvcounts, rdispls, t, a.root);
    case CCT_SCATTERV: return scatterv(rt, s, sendcounts, sdispls, t, r, count, t, a.root);
    case CCT_ALLTOALLV: return alltoallv(rt, s, sendcounts, sdispls, t, r, recvcounts, rdispls, t);
    case CCT_COLLECTIVE_COUNT: break;
  }
  return "not a collective";
}

}  // namespace cct::interposer
