// The `mpi` algorithm of every collective: the call as the collective
// library's own, through cct_comm.library (inside an MPI program, the MPI
// library's PMPI_* call on the communicator's ranks).
//
// Why an algorithm that is no algorithm: the tuner measures it beside the
// others whenever it runs under MPI, so a tuned profile keeps the library
// wherever the library wins, and can only match or beat it, up to
// measurement error. Outside an MPI program the host grants no
// CCT_CAP_LIBRARY and it is not offered.
#include <climits>
#include <cstddef>
#include <stdexcept>

#include "cct/sdk/algorithm.hpp"

namespace {

bool has_library(const cct_comm& comm) {
  return comm.struct_size >= offsetof(cct_comm, library) + sizeof comm.library &&
         comm.library != nullptr;
}

// kReduces: the collective combines with the call's op (the export list
// below says which do).
template <cct_collective C, bool kReduces = false>
class LibraryCall {
 public:
  static constexpr cct::sdk::Info info{
      .name = "mpi",
      .doc = "the MPI library's own collective (PMPI_*), measured as one more candidate",
      .collective = C,
      .required_caps = CCT_CAP_LIBRARY,
      .limits = CCT_LIMIT_IN_PLACE,
  };

  static void check(const cct::sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
    if (!has_library(*comm.raw())) throw cct::sdk::Unsupported("no collective library here");
    if (a.count > INT_MAX) throw cct::sdk::Unsupported("MPI counts elements in int");
    // cct's 8-bit sums and products wrap; Open MPI 4.1's saturate.
    const bool narrow = a.dtype == CCT_INT8 || a.dtype == CCT_UINT8;
    if (kReduces && narrow && (a.op == CCT_SUM || a.op == CCT_PROD))
      throw cct::sdk::Unsupported("8-bit sums and products (the library may saturate them)");
  }

  LibraryCall(const cct::sdk::Comm& comm, std::span<const int64_t>)
      : library_(comm.raw()->library) {}

  void run(const cct_coll_args& a) {
    cct_error err;  // an empty message, not 256 zeroed bytes: this is on every call's path
    err.message[0] = '\0';
    if (library_->run(library_->ctx, &a, &err) != CCT_OK)
      throw std::runtime_error(std::string(library_->name) + ": " + err.message);
  }

 private:
  const cct_library* library_;
};

}  // namespace

CCT_SDK_EXPORT_ALGORITHMS(LibraryCall<CCT_BARRIER>, LibraryCall<CCT_BCAST>, LibraryCall<CCT_GATHER>,
                          LibraryCall<CCT_SCATTER>, LibraryCall<CCT_REDUCE, true>,
                          LibraryCall<CCT_ALLREDUCE, true>, LibraryCall<CCT_ALLGATHER>,
                          LibraryCall<CCT_ALLTOALL>, LibraryCall<CCT_REDUCE_SCATTER_BLOCK, true>,
                          LibraryCall<CCT_REDUCE_SCATTER, true>, LibraryCall<CCT_ALLGATHERV>,
                          LibraryCall<CCT_SCAN, true>, LibraryCall<CCT_EXSCAN, true>,
                          LibraryCall<CCT_GATHERV>, LibraryCall<CCT_SCATTERV>,
                          LibraryCall<CCT_ALLTOALLV>)
