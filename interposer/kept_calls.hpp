// The MPI interposer: the calls a thread found kept on the MPI library for
// their size, remembered so that the same call again goes to the library
// at once (run_again.hpp remembers the calls the runtime ran).
//
// A program repeats its calls, and a call kept on the library should cost
// next to nothing (the runtime's decision alone costs more than the
// library's own small call: measured at np 1, 77 ns against the library's
// 43). So each thread remembers, per collective, the last call it found
// kept, by MPI's own arguments, and the same call again is kept at once,
// before anything is converted: the runtime's decision rests on nothing
// else. Only predefined datatypes and operators are remembered (never
// freed, their handles never name anything else), and runtimes are told
// apart by serial, never by address. Not under CCT_LOG=debug, which logs
// every call's decision, nor where the runtime agrees on memory kinds
// (every rank must then ask it).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <span>

#include "cct/abi/common.h"

namespace cct::interposer {

struct KeptCall {
  uint64_t runtime = 0;  // Runtime::serial(); 0: none
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  bool operator==(const KeptCall&) const = default;
};

// This thread's last kept call of each collective. initial-exec and
// constinit, as comm_runtimes.hpp's last_looked_up: read without a call.
[[gnu::tls_model(
    "initial-exec")]] extern constinit thread_local KeptCall last_kept_calls[CCT_COLLECTIVE_COUNT];

// The collectives whose decision reads per-rank counts too, equal on every
// rank (allgatherv's recvcounts, reduce_scatter's): kept beside their
// KeptCall (count 0), this thread's, in last_kept_counts[counts_slot(c)].
inline bool decided_by_counts(cct_collective c) {
  return c == CCT_ALLGATHERV || c == CCT_REDUCE_SCATTER;
}
inline int counts_slot(cct_collective c) {
  return c == CCT_ALLGATHERV ? 0 : 1;
}

// The counts of such a call, held in place, for communicators of up to
// kMostKeptRanks ranks; a larger one's calls are not remembered (each
// takes the runtime's decision, which costs little beside their own
// time). In place, not in a vector: a thread_local vector is reached
// through its initialising wrapper, which made a kept reduce_scatter cost
// 12-19 ns over the library where a kept gatherv costs 6-9 (np 1 and 2,
// tools/kept_overhead.py).
inline constexpr int kMostKeptRanks = 32;
struct KeptCounts {
  int ranks = 0;  // 0: none remembered
  int counts[kMostKeptRanks] = {};
  bool holds(const int* those, int n) const {
    if (n != ranks || n == 0) return false;
    for (int r = 0; r < n; ++r)
      if (counts[r] != those[r]) return false;
    return true;
  }
  void keep(std::span<const int> those) {
    ranks = those.size() <= kMostKeptRanks ? static_cast<int>(those.size()) : 0;
    std::copy_n(those.begin(), ranks, counts);
  }
};
[[gnu::tls_model("initial-exec")]] extern constinit thread_local KeptCounts last_kept_counts[2];

}  // namespace cct::interposer
