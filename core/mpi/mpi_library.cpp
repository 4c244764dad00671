#include "mpi_library.hpp"

#include <cstdio>

namespace cct {
namespace {

// cct's datatypes and operators as MPI's (the same sizes and kinds).
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

// The library's name and version, up to its first comma ("Open MPI
// v4.1.4").
std::string library_name() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  PMPI_Get_library_version(text, &length);
  std::string name(text, static_cast<std::size_t>(length));
  return name.substr(0, name.find_first_of(",\n"));
}

// One call, through PMPI_* so that an interposer preloaded in the same
// process never takes it back.
int call(MPI_Comm comm, const cct_coll_args& a) {
  const MPI_Datatype t = mpi_type(a.dtype);
  const int n = static_cast<int>(a.count);
  const void* send = a.sendbuf == CCT_IN_PLACE ? MPI_IN_PLACE : a.sendbuf;
  void* recv = a.recvbuf == CCT_IN_PLACE ? MPI_IN_PLACE : a.recvbuf;
  switch (a.collective) {
    case CCT_BARRIER: return PMPI_Barrier(comm);
    case CCT_BCAST: return PMPI_Bcast(recv, n, t, a.root, comm);
    case CCT_GATHER: return PMPI_Gather(send, n, t, recv, n, t, a.root, comm);
    case CCT_SCATTER: return PMPI_Scatter(send, n, t, recv, n, t, a.root, comm);
    case CCT_REDUCE: return PMPI_Reduce(send, recv, n, t, mpi_op(a.op), a.root, comm);
    case CCT_ALLREDUCE: return PMPI_Allreduce(send, recv, n, t, mpi_op(a.op), comm);
    case CCT_ALLGATHER: return PMPI_Allgather(send, n, t, recv, n, t, comm);
    default: return PMPI_Alltoall(send, n, t, recv, n, t, comm);
  }
}

}  // namespace

MpiLibrary::MpiLibrary(MPI_Comm comm) : comm_(comm), name_(library_name()) {
  library_ = cct_library{.struct_size = sizeof(cct_library),
                         .abi_version = CCT_ABI_VERSION,
                         .name = name_.c_str(),
                         .ctx = this,
                         .run = &MpiLibrary::run};
}

cct_status MpiLibrary::run(void* ctx, const cct_coll_args* args, cct_error* err) {
  const int rc = call(static_cast<MpiLibrary*>(ctx)->comm_, *args);
  if (rc == MPI_SUCCESS) return CCT_OK;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  PMPI_Error_string(rc, text, &length);
  std::snprintf(err->message, sizeof err->message, "%.*s", length, text);
  return CCT_ERR_TRANSPORT;
}

}  // namespace cct
