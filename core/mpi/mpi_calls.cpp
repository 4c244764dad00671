#include "mpi_calls.hpp"

#include <iterator>
#include <vector>

namespace cct {
namespace {

// One call's arguments in MPI's terms: counts and displacements as int.
struct MpiArgs {
  const void* send;
  void* recv;
  int count;
  MPI_Datatype type;
  MPI_Op op;
  int root;
  MPI_Comm comm;
  const int* recvcounts;
  const int* rdispls;
  const int* sendcounts;
  const int* sdispls;
};

using Call = int (*)(const MpiArgs&);

// In cct_collective order.
constexpr Call kCalls[] = {
    [](const MpiArgs& a) { return PMPI_Barrier(a.comm); },
    [](const MpiArgs& a) { return PMPI_Bcast(a.recv, a.count, a.type, a.root, a.comm); },
    [](const MpiArgs& a) {
      return PMPI_Gather(a.send, a.count, a.type, a.recv, a.count, a.type, a.root, a.comm);
    },
    [](const MpiArgs& a) {
      return PMPI_Scatter(a.send, a.count, a.type, a.recv, a.count, a.type, a.root, a.comm);
    },
    [](const MpiArgs& a) {
      return PMPI_Reduce(a.send, a.recv, a.count, a.type, a.op, a.root, a.comm);
    },
    [](const MpiArgs& a) { return PMPI_Allreduce(a.send, a.recv, a.count, a.type, a.op, a.comm); },
    [](const MpiArgs& a) {
      return PMPI_Allgather(a.send, a.count, a.type, a.recv, a.count, a.type, a.comm);
    },
    [](const MpiArgs& a) {
      return PMPI_Alltoall(a.send, a.count, a.type, a.recv, a.count, a.type, a.comm);
    },
    [](const MpiArgs& a) {
      return PMPI_Reduce_scatter_block(a.send, a.recv, a.count, a.type, a.op, a.comm);
    },
    [](const MpiArgs& a) {
      return PMPI_Reduce_scatter(a.send, a.recv, a.recvcounts, a.type, a.op, a.comm);
    },
    [](const MpiArgs& a) {
      int rank = 0;
      PMPI_Comm_rank(a.comm, &rank);
      return PMPI_Allgatherv(a.send, a.recvcounts[rank], a.type, a.recv, a.recvcounts, a.rdispls,
                             a.type, a.comm);
    },
    [](const MpiArgs& a) { return PMPI_Scan(a.send, a.recv, a.count, a.type, a.op, a.comm); },
    [](const MpiArgs& a) { return PMPI_Exscan(a.send, a.recv, a.count, a.type, a.op, a.comm); },
    [](const MpiArgs& a) {
      return PMPI_Gatherv(a.send, a.count, a.type, a.recv, a.recvcounts, a.rdispls, a.type, a.root,
                          a.comm);
    },
    [](const MpiArgs& a) {
      return PMPI_Scatterv(a.send, a.sendcounts, a.sdispls, a.type, a.recv, a.count, a.type, a.root,
                           a.comm);
    },
    [](const MpiArgs& a) {
      return PMPI_Alltoallv(a.send, a.sendcounts, a.sdispls, a.type, a.recv, a.recvcounts,
                            a.rdispls, a.type, a.comm);
    },
};
static_assert(std::size(kCalls) == CCT_COLLECTIVE_COUNT, "every cct_collective needs its call");

}  // namespace

MPI_Datatype mpi_type(cct_datatype t) {
  const MPI_Datatype types[CCT_DATATYPE_COUNT] = {
      MPI_INT8_T,   MPI_INT16_T,  MPI_INT32_T,  MPI_INT64_T, MPI_UINT8_T,
      MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_FLOAT,   MPI_DOUBLE};
  return types[t];
}

MPI_Op mpi_op(cct_op op) {
  const MPI_Op ops[CCT_OP_COUNT] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
  return ops[op];
}

const int* as_ints(const std::size_t* values, int size, std::vector<int>& storage) {
  if (values == nullptr) return nullptr;
  storage.assign(values, values + size);
  return storage.data();
}

int call_library(const cct_coll_args& a, MPI_Datatype type, MPI_Comm comm) {
  thread_local std::vector<int> recvcounts, rdispls, sendcounts, sdispls;
  int size = 0;
  PMPI_Comm_size(comm, &size);
  const MpiArgs mpi{.send = a.sendbuf == CCT_IN_PLACE ? MPI_IN_PLACE : a.sendbuf,
                    .recv = a.recvbuf == CCT_IN_PLACE ? MPI_IN_PLACE : a.recvbuf,
                    .count = static_cast<int>(a.count),
                    .type = type,
                    .op = mpi_op(a.op),
                    .root = a.root,
                    .comm = comm,
                    .recvcounts = as_ints(a.recvcounts, size, recvcounts),
                    .rdispls = as_ints(a.rdispls, size, rdispls),
                    .sendcounts = as_ints(a.sendcounts, size, sendcounts),
                    .sdispls = as_ints(a.sdispls, size, sdispls)};
  return kCalls[a.collective](mpi);
}

}  // namespace cct
