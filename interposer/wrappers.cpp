// The MPI interposer's MPI_* symbols (PMPI profiling interface): preloaded
// before libmpi, they run each supported collective call on the runtime of
// its communicator and leave everything else to the MPI library, counted
// with the reason (see pass_through.hpp).
//
// Whether a call is supported must be decided alike on every rank, or some
// ranks would wait in the runtime for others gone to the library. So the
// decision rests on what every rank passes about its own data (a gather's
// send side, a scatter's receive side), and a root whose other side is laid
// out differently converts it locally through the MPI library
// (local_copy): still correct, never a different decision. One case is
// left: ranks that describe the same data with different types on the side
// that decides (MPI_INT x 4 on one rank, a contiguous type x 1 on another)
// would split between the runtime and the library and wait for each other.
// MPI allows it; programs rarely do it.
#include <mpi.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cct/abi/algorithm.h"
#include "comm_runtimes.hpp"
#include "mpi_types.hpp"
#include "pass_through.hpp"
#include "reentry.hpp"

namespace cct::interposer {
namespace {

const char* const kType =
    "a datatype the runtime does not take (derived, pair, long double, complex...)";
const char* const kOp = "an operator the runtime does not take (user, logical, bitwise, MAXLOC...)";
const char* const kArguments =
    "arguments for the MPI library to judge (a negative count or a bad root)";

// Runs ours(runtime) -> reason (null: it ran the call) on comm's runtime,
// or pmpi() with the reason counted. The runtime is made on the
// communicator's first call whatever its arguments: that is collective.
template <class Pmpi, class Ours>
int intercept(cct_collective collective, MPI_Comm comm, Pmpi&& pmpi, Ours&& ours) {
  if (Reentry::inside() || comm == MPI_COMM_NULL) return pmpi();
  const char* reason = nullptr;
  {
    Reentry inside;
    CommRuntime& entry = runtime_of(comm);
    try {
      reason = entry.runtime() ? ours(*entry.runtime()) : entry.refused.c_str();
    } catch (const std::exception& e) {
      std::cerr << "cct: " << e.what() << "\n";
      PMPI_Comm_call_errhandler(comm, MPI_ERR_INTERN);
      return MPI_ERR_INTERN;
    }
  }
  if (reason == nullptr) return MPI_SUCCESS;
  count_pass_through(collective, reason);
  return pmpi();
}

bool bad_root(const Runtime& rt, int root) {
  return root < 0 || root >= rt.size();
}

// count elements of from_type at from, laid out anew as to_count elements
// of to_type at to (the same type signature), by the MPI library.
void local_copy(const void* from, int from_count, MPI_Datatype from_type, void* to, int to_count,
                MPI_Datatype to_type) {
  PMPI_Sendrecv(from, from_count, from_type, 0, 0, to, to_count, to_type, 0, 0, MPI_COMM_SELF,
                MPI_STATUS_IGNORE);
}

std::vector<unsigned char> contiguous(int elements, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return std::vector<unsigned char>(static_cast<std::size_t>(elements) * size);
}

// One side of a call's data as MPI describes it.
template <class Buffer>
struct Side {
  Buffer buf;
  int count;
  MPI_Datatype type;
};

// allgather and alltoall, whose every rank sends size() blocks' worth and
// receives as much: decided on the send side (in place, on every rank: the
// receive side); a receive side of another layout is converted after.
// run(send, recv, count, dtype) makes the runtime's call. Returns the
// reason to leave the call to the library, or null when it ran.
template <class Run>
const char* to_all(const Runtime& rt, Side<const void*> send, Side<void*> recv, Run&& run) {
  const bool in_place = send.buf == MPI_IN_PLACE;
  const Side<const void*> key =
      in_place ? Side<const void*>{recv.buf, recv.count, recv.type} : send;
  const auto t = datatype_of(key.type);
  if (!t) return kType;
  if (key.count < 0) return kArguments;
  if (in_place || (recv.type == key.type && recv.count == key.count)) {
    run(in_place ? CCT_IN_PLACE : send.buf, recv.buf, key.count, *t);
    return nullptr;
  }
  auto all = contiguous(rt.size() * key.count, key.type);
  run(send.buf, all.data(), key.count, *t);
  local_copy(all.data(), rt.size() * key.count, key.type, recv.buf, rt.size() * recv.count,
             recv.type);
  return nullptr;
}

}  // namespace
}  // namespace cct::interposer

using namespace cct::interposer;
using cct::Runtime;

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  int provided = MPI_THREAD_SINGLE;
  if (rc == MPI_SUCCESS) PMPI_Query_thread(&provided);
  set_thread_level(provided);
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) set_thread_level(*provided);
  return rc;
}

int MPI_Finalize() {
  {
    Reentry inside;
    finish();
    const char* stats = std::getenv("CCT_STATS");
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (stats != nullptr && std::string(stats) != "0" && *stats != '\0' && rank == 0) {
      std::ostringstream table;  // one write: other ranks print at the same time
      print_pass_through(table);
      std::cerr << table.str() << std::flush;
    }
  }
  return PMPI_Finalize();
}

int MPI_Barrier(MPI_Comm comm) {
  return intercept(
      CCT_BARRIER, comm, [&] { return PMPI_Barrier(comm); },
      [&](Runtime& rt) -> const char* {
        rt.barrier();
        return nullptr;
      });
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return intercept(
      CCT_BCAST, comm, [&] { return PMPI_Bcast(buf, count, type, root, comm); },
      [&](Runtime& rt) -> const char* {
        const auto t = datatype_of(type);
        if (!t) return kType;
        if (count < 0 || bad_root(rt, root)) return kArguments;
        rt.bcast(buf, count, *t, root);
        return nullptr;
      });
}

// Decided on the send side (a root in place: its receive side).
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return intercept(
      CCT_GATHER, comm,
      [&] {
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&](Runtime& rt) -> const char* {
        if (bad_root(rt, root)) return kArguments;
        const bool at_root = rt.rank() == root;
        const bool in_place = at_root && sendbuf == MPI_IN_PLACE;
        const int count = in_place ? recvcount : sendcount;
        const MPI_Datatype type = in_place ? recvtype : sendtype;
        const auto t = datatype_of(type);
        if (!t) return kType;
        if (count < 0) return kArguments;
        if (!at_root) {
          rt.gather(sendbuf, nullptr, count, *t, root);
        } else if (in_place || (recvtype == type && recvcount == count)) {
          rt.gather(in_place ? CCT_IN_PLACE : sendbuf, recvbuf, count, *t, root);
        } else {
          auto all = contiguous(rt.size() * count, type);
          rt.gather(sendbuf, all.data(), count, *t, root);
          local_copy(all.data(), rt.size() * count, type, recvbuf, rt.size() * recvcount, recvtype);
        }
        return nullptr;
      });
}

// Decided on the receive side (a root in place: its send side).
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return intercept(
      CCT_SCATTER, comm,
      [&] {
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&](Runtime& rt) -> const char* {
        if (bad_root(rt, root)) return kArguments;
        const bool at_root = rt.rank() == root;
        const bool in_place = at_root && recvbuf == MPI_IN_PLACE;
        const int count = in_place ? sendcount : recvcount;
        const MPI_Datatype type = in_place ? sendtype : recvtype;
        const auto t = datatype_of(type);
        if (!t) return kType;
        if (count < 0) return kArguments;
        if (!at_root) {
          rt.scatter(nullptr, recvbuf, count, *t, root);
        } else if (in_place || (sendtype == type && sendcount == count)) {
          rt.scatter(sendbuf, in_place ? CCT_IN_PLACE : recvbuf, count, *t, root);
        } else {
          auto all = contiguous(rt.size() * count, type);
          local_copy(sendbuf, rt.size() * sendcount, sendtype, all.data(), rt.size() * count, type);
          rt.scatter(all.data(), recvbuf, count, *t, root);
        }
        return nullptr;
      });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  return intercept(
      CCT_REDUCE, comm, [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); },
      [&](Runtime& rt) -> const char* {
        const auto t = datatype_of(type);
        const auto o = op_of(op);
        if (!t) return kType;
        if (!o) return kOp;
        if (count < 0 || bad_root(rt, root)) return kArguments;
        const bool in_place = rt.rank() == root && sendbuf == MPI_IN_PLACE;
        rt.reduce(in_place ? CCT_IN_PLACE : sendbuf, recvbuf, count, *t, *o, root);
        return nullptr;
      });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  return intercept(
      CCT_ALLREDUCE, comm, [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); },
      [&](Runtime& rt) -> const char* {
        const auto t = datatype_of(type);
        const auto o = op_of(op);
        if (!t) return kType;
        if (!o) return kOp;
        if (count < 0) return kArguments;
        rt.allreduce(sendbuf == MPI_IN_PLACE ? CCT_IN_PLACE : sendbuf, recvbuf, count, *t, *o);
        return nullptr;
      });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      CCT_ALLGATHER, comm,
      [&] {
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](Runtime& rt) {
        return to_all(rt, {sendbuf, sendcount, sendtype}, {recvbuf, recvcount, recvtype},
                      [&](const void* send, void* recv, int count, cct_datatype t) {
                        rt.allgather(send, recv, count, t);
                      });
      });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      CCT_ALLTOALL, comm,
      [&] {
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](Runtime& rt) {
        return to_all(rt, {sendbuf, sendcount, sendtype}, {recvbuf, recvcount, recvtype},
                      [&](const void* send, void* recv, int count, cct_datatype t) {
                        rt.alltoall(send, recv, count, t);
                      });
      });
}

}  // extern "C"
