// cct::Bootstrap's C view: the cct_bootstrap handed to transport plugins.
#include "cct/bootstrap.hpp"

#include <cstdio>
#include <exception>

#include "abi_v1.hpp"
#include "cct/error.hpp"
#include "cct/sdk/agree.hpp"

namespace cct {
namespace {

// No exception may cross into a plugin. The C bootstrap has no room for a
// message, so the reason goes to stderr where the launcher's report of the
// failed rank can be read beside it.
template <class F>
cct_status guarded(const char* what, F&& f) noexcept {
  try {
    f();
    return CCT_OK;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cct bootstrap %s: %s\n", what, e.what());
  } catch (...) {
    std::fprintf(stderr, "cct bootstrap %s: unknown exception\n", what);
  }
  return CCT_ERR_TRANSPORT;
}

cct_status allgather_trampoline(void* ctx, const void* send, void* recv, size_t bytes) {
  return guarded("allgather", [&] { static_cast<Bootstrap*>(ctx)->allgather(send, recv, bytes); });
}

cct_status barrier_trampoline(void* ctx) {
  return guarded("barrier", [&] { static_cast<Bootstrap*>(ctx)->barrier(); });
}

}  // namespace

const cct_bootstrap* Bootstrap::c_view(unsigned abi_version, cct_transport_instance* host) {
  key_ = job_key();  // owns the characters view_.job_key points at
  view_.struct_size = sizeof(cct_bootstrap);
  view_.abi_version = CCT_ABI_VERSION;
  if (abi_version == 1) abi_v1::stamp(&view_);
  view_.rank = rank();
  view_.size = size();
  view_.node = node();
  view_.nodes = nodes();
  view_.job_key = key_.c_str();
  view_.ctx = this;
  view_.mpi_comm = mpi_comm();
  view_.allgather = allgather_trampoline;
  view_.barrier = barrier_trampoline;
  view_.timeout_s = timeout_s();
  view_.host = host;
  return &view_;
}

void agree(Bootstrap& boot, const std::string& failure, const std::string& what,
           cct_status status) {
  const std::string first = sdk::first_failure(
      boot.size(), failure, what,
      [&](const void* send, void* recv, std::size_t bytes) { boot.allgather(send, recv, bytes); });
  if (!first.empty()) throw Error(first, status);
}

std::string Bootstrap::label() const {
  return "a communicator of " + std::to_string(size()) + " ranks";
}

}  // namespace cct
