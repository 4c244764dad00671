// A test plugin: three bcasts that work below 4 KiB and fault from 4 KiB
// on, so that the tuner's fault isolation has candidates that fail at some
// sizes of a shape and not at others: crash_at_4k crashes rank 1 (SIGSEGV,
// for real), hang_at_4k makes rank 1 wait forever, stop_at_4k stops it
// (SIGSTOP, as a debugger or the terminal's Ctrl-Z would).
#include <unistd.h>

#include <csignal>

#include "cct/sdk/algorithm.hpp"

namespace {

// The root sends the buffer to each rank in turn; from 4 KiB on, rank 1
// first does what `fault` does.
template <const char* kName, void (*fault)()>
class FaultyBcast {
 public:
  static constexpr cct::sdk::Info info{.name = kName, .collective = CCT_BCAST};
  FaultyBcast(const cct::sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}
  void run(const cct_coll_args& a) {
    const std::size_t bytes = a.count * cct::sdk::dtype_size(a.dtype);
    if (bytes >= 4096 && comm_.rank() == 1) fault();
    if (comm_.rank() != a.root) return comm_.recv(a.recvbuf, bytes, a.root, a.tag);
    for (int r = 0; r < comm_.size(); ++r)
      if (r != a.root) comm_.send(a.recvbuf, bytes, r, a.tag);
  }

 private:
  cct::sdk::Comm comm_;
};

void crash() {
  std::raise(SIGSEGV);
}
void hang() {
  for (;;) pause();
}
void stop() {
  std::raise(SIGSTOP);
}
constexpr char kCrash[] = "crash_at_4k";
constexpr char kHang[] = "hang_at_4k";
constexpr char kStop[] = "stop_at_4k";
using CrashAt4k = FaultyBcast<kCrash, crash>;
using HangAt4k = FaultyBcast<kHang, hang>;
using StopAt4k = FaultyBcast<kStop, stop>;

}  // namespace

CCT_SDK_EXPORT_ALGORITHMS(CrashAt4k, HangAt4k, StopAt4k)
