// A test plugin: a bcast that crashes rank 1 (SIGSEGV, for real) from 4 KiB
// on and works below, so the tuner's crash isolation has a candidate that
// fails at some sizes of a shape and not at others.
#include <csignal>

#include "cct/sdk/algorithm.hpp"

namespace {

class CrashAt4k {
 public:
  static constexpr cct::sdk::Info info{.name = "crash_at_4k", .collective = CCT_BCAST};
  CrashAt4k(const cct::sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}
  // The root sends the buffer to each rank in turn.
  void run(const cct_coll_args& a) {
    const std::size_t bytes = a.count * cct::sdk::dtype_size(a.dtype);
    if (bytes >= 4096 && comm_.rank() == 1) std::raise(SIGSEGV);
    if (comm_.rank() != a.root) return comm_.recv(a.recvbuf, bytes, a.root, a.tag);
    for (int r = 0; r < comm_.size(); ++r)
      if (r != a.root) comm_.send(a.recvbuf, bytes, r, a.tag);
  }

 private:
  cct::sdk::Comm comm_;
};

}  // namespace

CCT_SDK_EXPORT_ALGORITHMS(CrashAt4k)
