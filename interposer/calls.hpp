// The MPI interposer: each intercepted collective's MPI arguments as one
// call of the runtime (the MPI_* symbols in wrappers.cpp call these; so
// does ccbench, to time the same path).
//
// Whether the runtime takes a call must be decided alike on every rank, or
// some ranks would wait in the runtime for others gone to the library. So
// it rests only on what MPI guarantees equal on every rank:
// - bcast, gather, scatter, allgather, alltoall: the communicator, the root
//   and the bytes of each block's type signature. Every datatype is taken
//   and every call is a call on bytes (CCT_UINT8, as the tuner measured
//   them), whatever datatype handles the ranks name (see packing.hpp);
// - allgatherv: as allgather, with recvcounts (equal on every rank by MPI's
//   rules) in bytes of the type signature; each rank's displacements and
//   datatypes are its own;
// - gatherv, scatterv, alltoallv: every datatype, as bytes; no rank knows
//   the others' counts, so the decision rests on the root and the sum of
//   the ranks' shares, which the runtime agrees on where its choice
//   depends on the size (Runtime::keeps_library);
// - the reductions (reduce, allreduce, reduce_scatter_block,
//   reduce_scatter, scan, exscan): MPI requires the same datatype,
//   operator (and recvcounts) on every rank, and the runtime must compute
//   with them, so only the predefined ones it has (mpi_types.hpp) are
//   taken.
// Each returns null when the runtime ran the call; kMovesNothing when no
// rank sends or receives a byte (empty blocks, a count of 0: every rank
// knows it, by MPI's rules), the call then done at once, as the library
// does (gatherv, scatterv and alltoallv, where a rank cannot know the
// others' counts, run on); else the reason to leave it to the MPI library:
// kKeptOnLibrary where the profile (or CCT_FORCE) keeps the library's own
// call for it, the call then costing nothing but that decision, with no
// packing and no runtime in front of the library; kKeptAsBefore for the
// same call again, kept without even that decision (calls.cpp, KeptCall). A rank whose two sides
// disagree in size (an erroneous program) gets a cct::Error.
#pragma once

#include <mpi.h>

#include "cct/runtime.hpp"

namespace cct::interposer {

extern const char* const kKeptOnLibrary;
extern const char* const kKeptAsBefore;
extern const char* const kMovesNothing;

const char* barrier(Runtime& rt);
const char* bcast(Runtime& rt, void* buf, int count, MPI_Datatype type, int root);
const char* gather(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
const char* scatter(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
const char* allgather(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype);
const char* alltoall(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     void* recvbuf, int recvcount, MPI_Datatype recvtype);
const char* reduce(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                   MPI_Op op, int root);
const char* allreduce(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op);
const char* reduce_scatter_block(Runtime& rt, const void* sendbuf, void* recvbuf, int recvcount,
                                 MPI_Datatype type, MPI_Op op);
const char* reduce_scatter(Runtime& rt, const void* sendbuf, void* recvbuf, const int* recvcounts,
                           MPI_Datatype type, MPI_Op op);
const char* allgatherv(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const int* recvcounts, const int* rdispls,
                       MPI_Datatype recvtype);
const char* scan(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                 MPI_Op op);
const char* exscan(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                   MPI_Op op);
const char* gatherv(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                    int root);
const char* scatterv(Runtime& rt, const void* sendbuf, const int* sendcounts, const int* sdispls,
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root);
const char* alltoallv(Runtime& rt, const void* sendbuf, const int* sendcounts, const int* sdispls,
                      MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                      const int* rdispls, MPI_Datatype recvtype);

}  // namespace cct::interposer
