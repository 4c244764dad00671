// The MPI interposer: calls the runtime makes itself go to the library.
//
// The runtime's own setup and teardown use MPI (the bootstrap allgathers
// over a duplicate of the communicator), and those calls arrive at the
// interposer's MPI_* symbols too. While the interposer is inside the
// runtime, every intercepted call goes straight to PMPI_*, uncounted.
#pragma once

namespace cct::interposer {

class Reentry {
 public:
  Reentry() { ++depth_; }
  ~Reentry() { --depth_; }
  Reentry(const Reentry&) = delete;
  Reentry& operator=(const Reentry&) = delete;

  // True while some caller up the stack holds a Reentry.
  static bool inside() { return depth_ > 0; }

 private:
  // initial-exec: the interposer is preloaded or linked at start, never
  // dlopen()ed late, so its counter can live in static TLS and be read
  // without a call to __tls_get_addr on every MPI call.
  [[gnu::tls_model("initial-exec")]] static inline thread_local int depth_ = 0;
};

}  // namespace cct::interposer
