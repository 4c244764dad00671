#include "mpi_library.hpp"

#include <cstdio>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "mpi_calls.hpp"

namespace cct {
namespace {

// The library's name and version, up to its first comma ("Open MPI
// v4.1.4").
std::string library_name() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  PMPI_Get_library_version(text, &length);
  std::string name(text, static_cast<std::size_t>(length));
  return name.substr(0, name.find_first_of(",\n"));
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
  cct_coll_args call;
  try {
    call = as_this_build(args);  // an algorithm of version 1 passes version 1's struct
  } catch (const Error& e) {
    std::snprintf(err->message, sizeof err->message, "%s", e.what());
    return e.status();
  }
  const int rc = call_library(call, mpi_type(call.dtype), static_cast<MpiLibrary*>(ctx)->comm_);
  if (rc == MPI_SUCCESS) return CCT_OK;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  PMPI_Error_string(rc, text, &length);
  std::snprintf(err->message, sizeof err->message, "%.*s", length, text);
  return CCT_ERR_TRANSPORT;
}

}  // namespace cct
