// The MPI interposer: a runtime per communicator.
//
// A communicator's runtime is made on its first intercepted collective
// call (every rank of it is in that call, so making it, which is
// collective, is safe there) and kept as an MPI attribute of the
// communicator: MPI_Comm_free destroys it with the communicator, and
// finish() destroys the rest before MPI_Finalize. Its transport is shm on
// one node and mpi across nodes (CCT_TRANSPORT overrides). A communicator
// the runtime cannot serve keeps the reason instead, and all its calls go
// to the MPI library: an intercommunicator, or a failure to open (said on
// stderr by the communicator's rank 0 once per process and reason, whatever
// CCT_STATS and CCT_LOG say). Safe under every thread level: see
// comm_runtimes.cpp.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "cct/runtime.hpp"
#include "cct/session.hpp"

namespace cct::interposer {

struct CommRuntime {
  std::unique_ptr<Session> session;  // null when refused
  std::string refused;               // why the runtime does not serve it
  std::string label;                 // world, self or size=N, for CCT_STATS
  Runtime* runtime() const { return session ? &session->runtime() : nullptr; }
};

// The runtime of comm, made on first use. Collective over comm then.
CommRuntime& runtime_of(MPI_Comm comm);

// The communicator this thread asked runtime_of about last: programs call
// most of their collectives on one communicator, and an MPI attribute
// lookup costs more than the runtime's whole dispatch. Valid while no
// runtime was deleted since (runtime_deletions): a freed handle that MPI
// reuses for a new communicator is then looked up afresh, whichever thread
// freed it.
struct LastLookedUp {
  MPI_Comm comm;
  CommRuntime* entry;  // null: nothing cached
  Runtime* runtime;    // entry's, or null
  uint64_t deletions;
  // Whether it is comm's, with `now` runtimes deleted so far.
  bool holds(MPI_Comm c, uint64_t now) const {
    return entry != nullptr && comm == c && deletions == now;
  }
};
// initial-exec: the interposer is preloaded or linked at start, so the
// cache lives in static TLS, read without a call (reentry.hpp says more).
// constinit: zero-initialized, so that reading it needs no call to a TLS
// initialization wrapper.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local LastLookedUp last_looked_up;
extern std::atomic<uint64_t> runtime_deletions;

// The runtime of comm where this thread looked comm up last and nothing
// was deleted since, else null: a lookup that makes no MPI call, no runtime
// and no function call, for the calls kept on the library, which must cost
// next to nothing.
inline Runtime* cached_runtime(MPI_Comm comm) noexcept {
  const LastLookedUp& last = last_looked_up;
  return last.holds(comm, runtime_deletions.load(std::memory_order_acquire)) ? last.runtime
                                                                             : nullptr;
}

// Loads what the runtimes of all communicators share (plugins, topology,
// profile), so that the first collective does not pay for it; a failure is
// said on the first communicator. Call after MPI is initialised.
void start();

// Destroys every runtime still alive, in the order they were made
// (collective over each one's communicator). Call before PMPI_Finalize.
void finish();

// With CCT_STATS: one table of the communicators this process was rank 0
// of, gathered as each was freed (or at finish()), labelled world, self or
// size=N with their count, instead of a table per communicator (a program
// may make hundreds). Call after finish().
void print_gathered_stats(std::ostream& out, int world_rank);

}  // namespace cct::interposer
