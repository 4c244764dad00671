// The MPI interposer: the calls a thread found run by the runtime,
// remembered with the runtime's call each became, so that the same call
// again goes to the runtime at once with its new buffers.
//
// Converting a call costs more than some of the library's whole calls: an
// 8-byte binomial bcast at np 2 took 1565 instructions from MPI_Bcast, of
// which 1076 were before binomial's own 489, against 790 for the library's
// whole MPI_Bcast (callgrind). The conversion (its datatypes' layout, the
// keep-or-not decision, its buffers as bytes) rests on MPI's arguments
// but the buffers, and for datatypes whose elements lie end to end it
// takes the buffers as they are. So each thread remembers, per
// collective, the last call the runtime ran, by those arguments (CallKey)
// and the call it became (PreparedCall); the same arguments again are put
// into that call with the new buffers and run, without converting. Only
// predefined datatypes are remembered, where the conversion took the
// buffers as they are (not packed), not under CCT_LOG=debug (every call's
// decision is logged), not on a runtime with a device transport (buffers
// may be device memory), and runtimes are told apart by serial, never by
// address: kept_calls.hpp's conditions. The collectives with counts per
// rank are not remembered (their counts would have to be compared).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <iosfwd>

#include "cct/abi/common.h"
#include "cct/runtime.hpp"
#include "per_thread.hpp"

namespace cct::interposer {

// One side of a call, as MPI gives it: its count and datatype.
struct CallSide {
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool operator==(const CallSide&) const = default;
};
// What of a call's MPI arguments its conversion reads, but its buffers:
// each side where significant on this rank (none elsewhere), the operator
// and the root; and which buffers are MPI_IN_PLACE (in_place_of()),
// whatever the collective.
struct CallKey {
  CallSide send, recv;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  int in_place = 0;
  bool operator==(const CallKey&) const = default;
};

// A side of count x type where it is significant, else none.
inline CallSide side_if(bool significant, int64_t count, MPI_Datatype type) {
  return significant ? CallSide{count, type} : CallSide{};
}

// CallKey::in_place of a call's MPI buffers: 1 for the send buffer, 2 for
// the receive buffer.
inline int in_place_of(const void* sendbuf, const void* recvbuf) {
  return (sendbuf == MPI_IN_PLACE ? 1 : 0) | (recvbuf == MPI_IN_PLACE ? 2 : 0);
}

// Where a buffer of the runtime's call comes from: as the conversion made
// it (null, or CCT_IN_PLACE), or MPI's send or receive buffer as it is.
enum class BufferFrom : uint8_t { kConversion, kSendbuf, kRecvbuf };

struct PreparedCall {
  uint64_t runtime = 0;  // Runtime::serial(); 0: none
  CallKey key;
  cct_coll_args args{};  // the runtime's call, its buffers from `send` and `recv`
  BufferFrom send = BufferFrom::kConversion, recv = BufferFrom::kConversion;
};

// This thread's last call of each collective that the runtime ran.
// initial-exec and constinit, as comm_runtimes.hpp's last_looked_up: read
// without a call.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local PreparedCall
    prepared_calls[CCT_COLLECTIVE_COUNT];

// The runtime's call the conversion on this thread made last
// (calls.cpp), for remember().
[[gnu::tls_model("initial-exec")]] extern constinit thread_local cct_coll_args converted_call;

// Remembers the call of collective c that rt has just run, from the
// conversion's converted_call, where it may be (see above); key: without
// its in_place, which the buffers give; sendbuf and recvbuf: MPI's.
void remember(const Runtime& rt, cct_collective c, CallKey key, const void* sendbuf,
              const void* recvbuf);

// The remembered call with MPI's new buffers in it.
cct_coll_args with_buffers(const PreparedCall& call, const void* sendbuf, void* recvbuf);

struct RunAgain {
  uint64_t calls[CCT_COLLECTIVE_COUNT] = {};
};

inline void count_run_again(cct_collective c) {
  ++PerThread<RunAgain>::mine().calls[c];
}

// "cct: calls run again as the same call before, not converted again (rank
// 0)" and a line per collective counted; nothing where none was. Counted
// per thread; with CCT_STATS=1 rank 0 of MPI_COMM_WORLD prints the counts
// at MPI_Finalize, so that a test can count what no timing shows.
void print_run_again(std::ostream& out);

}  // namespace cct::interposer
