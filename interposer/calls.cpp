#include "calls.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "datatype_layout.hpp"
#include "kept_calls.hpp"
#include "memory_kinds.hpp"
#include "mpi_types.hpp"
#include "packing.hpp"
#include "run_again.hpp"

namespace cct::interposer {

[[gnu::tls_model(
    "initial-exec")]] constinit thread_local KeptCall last_kept_calls[CCT_COLLECTIVE_COUNT]{};
[[gnu::tls_model("initial-exec")]] constinit thread_local KeptCounts last_kept_counts[2]{};

namespace {

const char* const kType =
    "a datatype the runtime cannot reduce (derived, pair, long double, complex...)";
const char* const kOp = "an operator the runtime does not take (user, logical, bitwise, MAXLOC...)";
const char* const kArguments =
    "arguments for the MPI library to judge (a negative count, a bad root, a null datatype, "
    "a misplaced MPI_IN_PLACE)";

bool bad_root(const Runtime& rt, int root) {
  return root < 0 || root >= rt.size();
}

// A rank's send side must be as many bytes as its receive blocks call for
// (MPI: their type signatures match); otherwise the runtime would read or
// write past a buffer.
void expect_size(const char* call, std::size_t send, std::size_t receive) {
  if (send != receive)
    throw Error(std::string(call) + ": this rank sends " + std::to_string(send) +
                " bytes where its receive side calls for " + std::to_string(receive) +
                "; the type signatures of the two sides must match");
}

int64_t times(int blocks, int count) {
  return int64_t{blocks} * count;
}

// Where a call's buffers are, as the runtime is told them (cct_coll_args'
// sendmem and recvmem). The interposer hands the runtime device memory as
// it is only where the runtime may run an algorithm on device memory for
// the collective c (wrappers.cpp); elsewhere every buffer here is host
// memory, and nothing is asked. In place, the input is on the other side.
struct Memory {
  cct_memory_kind send = CCT_MEMORY_HOST, recv = CCT_MEMORY_HOST;
};

Memory memory_of(Runtime& rt, cct_collective c, const void* sendbuf, const void* recvbuf) {
  if (!rt.agrees_on_memory(c)) return {};
  cct_transport_instance* device = rt.device_transport();
  const auto kind = [&](const void* buf) {
    return buf == MPI_IN_PLACE ? std::nullopt : std::optional(memory_kind(device, buf));
  };
  const std::optional<cct_memory_kind> send = kind(sendbuf), recv = kind(recvbuf);
  return {send.value_or(recv.value_or(CCT_MEMORY_HOST)),
          recv.value_or(send.value_or(CCT_MEMORY_HOST))};
}

cct_coll_args in(const Memory& memory, cct_coll_args args) {
  args.sendmem = memory.send;
  args.recvmem = memory.recv;
  return args;
}

}  // namespace

namespace {

// Not where the runtime agrees on memory kinds: every rank must then ask it.
bool kept_before(const Runtime& rt, cct_collective c, const KeptCall& call,
                 std::span<const int> counts = {}) {
  if (rt.agrees_on_memory(c)) return false;
  return last_kept_calls[c] == call &&
         (!decided_by_counts(c) ||
          last_kept_counts[counts_slot(c)].holds(counts.data(), static_cast<int>(counts.size())));
}

// Whether rt keeps the call `args` describes on the library, remembered as
// `call` and `counts` when it does and may be (see KeptCall).
bool keeps(Runtime& rt, const cct_coll_args& args, const KeptCall& call, bool predefined,
           std::span<const int> counts = {}) {
  const bool kept = rt.keeps_library(args);
  if (kept && predefined && !rt.logs_every_call() && !rt.agrees_on_memory(args.collective)) {
    last_kept_calls[args.collective] = call;
    if (decided_by_counts(args.collective))
      last_kept_counts[counts_slot(args.collective)].keep(counts);
  }
  return kept;
}

// What becomes of a call on blocks of count x type before it is
// converted: kMovesNothing for empty blocks (every rank's are, by MPI's
// rules), kKeptOnLibrary where the runtime keeps it on the library, else
// null. Arguments MPI judges are not decided here (null): the call's
// conversion refuses them.
const char* settled(Runtime& rt, cct_collective c, int64_t count, MPI_Datatype type, int root,
                    const Memory& memory) {
  const KeptCall call{rt.serial(), count, type, MPI_OP_NULL, root};
  if (kept_before(rt, c, call)) return kKeptAsBefore;
  const std::optional<Layout> block = layout_of(count, type);
  if (!block) return nullptr;
  if (block->bytes == 0) return kMovesNothing;
  const cct_coll_args args =
      in(memory, make_call(c, nullptr, nullptr, block->bytes, CCT_UINT8, CCT_SUM, root));
  return keeps(rt, args, call, block->predefined) ? kKeptOnLibrary : nullptr;
}

// MPI's int counts as the runtime's, in storage kept per thread (a steady
// stream of calls never allocates); nullopt when one is negative, which is
// for the MPI library to judge.
std::optional<const std::size_t*> as_counts(const int* counts, int n,
                                            std::vector<std::size_t>& storage) {
  storage.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    if (counts[r] < 0) return std::nullopt;
    storage[r] = static_cast<std::size_t>(counts[r]);
  }
  return storage.data();
}

// Runs the call a conversion made, kept as this thread's converted_call
// (run_again.hpp) for the same call again.
void run_converted(Runtime& rt, const cct_coll_args& args) {
  converted_call = args;
  rt.run(args);
}

}  // namespace

const char* const kKeptOnLibrary = "the profile keeps the MPI library's own call for this size";
const char* const kKeptAsBefore = "kept on the library as the same call before it";
const char* const kMovesNothing = "no rank sends or receives a byte: returned at once";

const char* barrier(Runtime& rt) {
  if (rt.keeps_library(make_call(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0)))
    return kKeptOnLibrary;
  run_converted(rt, make_call(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0));
  return nullptr;
}

const char* bcast(Runtime& rt, void* buf, int count, MPI_Datatype type, int root) {
  if (bad_root(rt, root)) return kArguments;
  const Memory memory = memory_of(rt, CCT_BCAST, buf, buf);
  if (const char* done = settled(rt, CCT_BCAST, count, type, root, memory)) return done;
  PackTally tally;
  std::optional<Bytes> data = Bytes::of(tally, receive_scratch(), buf, count, type);
  if (!data) return kArguments;
  const bool at_root = rt.rank() == root;
  run_converted(rt, in(memory, make_call(CCT_BCAST, nullptr,
                                         at_root ? data->in_out(0, count) : data->output(),
                                         data->size(), CCT_UINT8, CCT_SUM, root)));
  if (!at_root) data->unpack();
  count_packing(CCT_BCAST, tally);
  return nullptr;
}

// The root's receive side sets the block; the others send one.
const char* gather(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  if (bad_root(rt, root)) return kArguments;
  const Memory memory = memory_of(rt, CCT_GATHER, sendbuf, rt.rank() == root ? recvbuf : nullptr);
  const char* done = rt.rank() == root ? settled(rt, CCT_GATHER, recvcount, recvtype, root, memory)
                                       : settled(rt, CCT_GATHER, sendcount, sendtype, root, memory);
  if (done) return done;
  PackTally tally;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::optional<Bytes> send;
  if (!in_place || rt.rank() != root) {
    send = Bytes::of(tally, send_scratch(), sendbuf, sendcount, sendtype);
    if (!send) return kArguments;
  }
  if (rt.rank() != root) {
    run_converted(rt, in(memory, make_call(CCT_GATHER, send->input(), nullptr, send->size(),
                                           CCT_UINT8, CCT_SUM, root)));
    count_packing(CCT_GATHER, tally);
    return nullptr;
  }
  std::optional<Bytes> all =
      Bytes::of(tally, receive_scratch(), recvbuf, times(rt.size(), recvcount), recvtype);
  if (!all) return kArguments;
  const std::size_t block = all->size() / rt.size();
  if (in_place) {
    run_converted(rt, in(memory, make_call(CCT_GATHER, CCT_IN_PLACE,
                                           all->in_out(times(root, recvcount), recvcount), block,
                                           CCT_UINT8, CCT_SUM, root)));
  } else {
    expect_size("MPI_Gather", send->size(), block);
    run_converted(rt, in(memory, make_call(CCT_GATHER, send->input(), all->output(), block,
                                           CCT_UINT8, CCT_SUM, root)));
  }
  all->unpack();
  count_packing(CCT_GATHER, tally);
  return nullptr;
}

// The root's send side sets the block; the others receive one.
const char* scatter(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  if (bad_root(rt, root)) return kArguments;
  const bool at_root = rt.rank() == root;
  const Memory memory = memory_of(rt, CCT_SCATTER, at_root ? sendbuf : nullptr, recvbuf);
  const char* done = at_root ? settled(rt, CCT_SCATTER, sendcount, sendtype, root, memory)
                             : settled(rt, CCT_SCATTER, recvcount, recvtype, root, memory);
  if (done) return done;
  PackTally tally;
  const bool in_place = at_root && recvbuf == MPI_IN_PLACE;
  std::optional<Bytes> mine;
  if (!in_place) {
    mine = Bytes::of(tally, receive_scratch(), recvbuf, recvcount, recvtype);
    if (!mine) return kArguments;
  }
  if (!at_root) {
    run_converted(rt, in(memory, make_call(CCT_SCATTER, nullptr, mine->output(), mine->size(),
                                           CCT_UINT8, CCT_SUM, root)));
    mine->unpack();
    count_packing(CCT_SCATTER, tally);
    return nullptr;
  }
  std::optional<Bytes> all =
      Bytes::of(tally, send_scratch(), sendbuf, times(rt.size(), sendcount), sendtype);
  if (!all) return kArguments;
  const std::size_t block = all->size() / rt.size();
  if (in_place) {
    run_converted(rt, in(memory, make_call(CCT_SCATTER, all->input(), CCT_IN_PLACE, block,
                                           CCT_UINT8, CCT_SUM, root)));
  } else {
    expect_size("MPI_Scatter", block, mine->size());
    run_converted(rt, in(memory, make_call(CCT_SCATTER, all->input(), mine->output(), block,
                                           CCT_UINT8, CCT_SUM, root)));
    mine->unpack();
  }
  count_packing(CCT_SCATTER, tally);
  return nullptr;
}

// allgather and alltoall: every rank's receive side holds size() blocks,
// and each sends one block to all (allgather) or one to each (alltoall,
// sent_blocks = size()). In place, the receive side holds the input too.
const char* to_all(cct_collective c, const char* call, int sent_blocks, Runtime& rt,
                   const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype) {
  const Memory memory = memory_of(rt, c, sendbuf, recvbuf);
  if (const char* done = settled(rt, c, recvcount, recvtype, 0, memory)) return done;
  const auto run = [&](const void* send, void* recv, std::size_t block) {
    run_converted(rt, in(memory, make_call(c, send, recv, block, CCT_UINT8, CCT_SUM, 0)));
  };
  PackTally tally;
  std::optional<Bytes> all =
      Bytes::of(tally, receive_scratch(), recvbuf, times(rt.size(), recvcount), recvtype);
  if (!all) return kArguments;
  const std::size_t block = all->size() / rt.size();
  if (sendbuf == MPI_IN_PLACE) {
    const int64_t own_first = sent_blocks == 1 ? times(rt.rank(), recvcount) : 0;
    run(CCT_IN_PLACE, all->in_out(own_first, times(sent_blocks, recvcount)), block);
  } else {
    std::optional<Bytes> send =
        Bytes::of(tally, send_scratch(), sendbuf, times(sent_blocks, sendcount), sendtype);
    if (!send) return kArguments;
    expect_size(call, send->size(), block * sent_blocks);
    run(send->input(), all->output(), block);
  }
  all->unpack();
  count_packing(c, tally);
  return nullptr;
}

const char* allgather(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  return to_all(CCT_ALLGATHER, "MPI_Allgather", 1, rt, sendbuf, sendcount, sendtype, recvbuf,
                recvcount, recvtype);
}

const char* alltoall(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  return to_all(CCT_ALLTOALL, "MPI_Alltoall", rt.size(), rt, sendbuf, sendcount, sendtype, recvbuf,
                recvcount, recvtype);
}

// The reductions: MPI requires the same predefined datatype and operator
// on every rank, and the runtime computes with them, so only those it has
// (mpi_types.hpp) are taken. `ours` is the runtime's call with sendbuf
// (CCT_IN_PLACE for MPI_IN_PLACE) and recvbuf filled in.
const char* reduction(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, cct_collective c, int root) {
  const KeptCall call{rt.serial(), count, type, op, root};
  if (kept_before(rt, c, call)) return kKeptAsBefore;
  const auto t = datatype_of(type);
  const auto o = op_of(op);
  if (!t) return kType;
  if (!o) return kOp;
  if (count < 0) return kArguments;
  if (count == 0) return kMovesNothing;
  const bool reads_recv = c != CCT_REDUCE || rt.rank() == root;
  cct_coll_args args =
      in(memory_of(rt, c, sendbuf, reads_recv ? recvbuf : nullptr),
         make_call(c, nullptr, nullptr, static_cast<std::size_t>(count), *t, *o, root));
  if (keeps(rt, args, call, true)) return kKeptOnLibrary;  // datatype_of takes predefined ones
  args.sendbuf = sendbuf == MPI_IN_PLACE ? CCT_IN_PLACE : sendbuf;
  args.recvbuf = recvbuf;
  run_converted(rt, args);
  return nullptr;
}

const char* reduce(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                   MPI_Op op, int root) {
  if (bad_root(rt, root)) return kArguments;
  // Erroneous: left to the library on this rank alone, the others would
  // wait in the runtime for it.
  if (rt.rank() != root && sendbuf == MPI_IN_PLACE)
    throw Error("MPI_Reduce: MPI_IN_PLACE on rank " + std::to_string(rt.rank()) +
                ", which is not the root");
  return reduction(rt, sendbuf, recvbuf, count, type, op, CCT_REDUCE, root);
}

const char* allreduce(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op) {
  return reduction(rt, sendbuf, recvbuf, count, type, op, CCT_ALLREDUCE, 0);
}

const char* reduce_scatter_block(Runtime& rt, const void* sendbuf, void* recvbuf, int recvcount,
                                 MPI_Datatype type, MPI_Op op) {
  return reduction(rt, sendbuf, recvbuf, recvcount, type, op, CCT_REDUCE_SCATTER_BLOCK, 0);
}

const char* scan(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                 MPI_Op op) {
  return reduction(rt, sendbuf, recvbuf, count, type, op, CCT_SCAN, 0);
}

const char* exscan(Runtime& rt, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                   MPI_Op op) {
  return reduction(rt, sendbuf, recvbuf, count, type, op, CCT_EXSCAN, 0);
}

// reduce_scatter: the decision rests on recvcounts (equal on every rank),
// the datatype and the operator.
const char* reduce_scatter(Runtime& rt, const void* sendbuf, void* recvbuf, const int* recvcounts,
                           MPI_Datatype type, MPI_Op op) {
  const KeptCall call{rt.serial(), 0, type, op, 0};
  const std::span<const int> given(recvcounts, recvcounts ? rt.size() : 0);
  if (recvcounts && kept_before(rt, CCT_REDUCE_SCATTER, call, given)) return kKeptAsBefore;
  const auto t = datatype_of(type);
  const auto o = op_of(op);
  if (!t) return kType;
  if (!o) return kOp;
  thread_local std::vector<std::size_t> counts;
  const auto mine = as_counts(recvcounts, rt.size(), counts);
  if (!mine) return kArguments;
  if (std::all_of(counts.begin(), counts.end(), [](std::size_t n) { return n == 0; }))
    return kMovesNothing;
  cct_coll_args args = in(memory_of(rt, CCT_REDUCE_SCATTER, sendbuf, recvbuf),
                          make_call(CCT_REDUCE_SCATTER, nullptr, nullptr, 0, *t, *o, 0));
  args.recvcounts = *mine;
  if (keeps(rt, args, call, true, given)) return kKeptOnLibrary;  // datatype_of: predefined
  args.sendbuf = sendbuf == MPI_IN_PLACE ? CCT_IN_PLACE : sendbuf;
  args.recvbuf = recvbuf;
  rt.run(args);
  return nullptr;
}

// One side of blocks at displacements, as bytes: every element from the
// lowest displacement to the end of the furthest block is one run the
// runtime reads blocks from or writes them into (packed where the type has
// gaps: a receive side packed first too, so that what lies between the
// blocks is put back as it was). `displs` gets each block's displacement
// in that run, in bytes.
struct Span {
  std::optional<Bytes> bytes;
  int64_t elements = 0;
};

Span span_of(PackTally& tally, Scratch& scratch, const void* buf, const int* counts,
             const int* displs_in, MPI_Datatype type, const Layout& one, int n,
             std::vector<std::size_t>& displs) {
  const BlockRun run = run_of(counts, displs_in, n);
  displs.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r)  // an empty block's displacement is never read
    displs[r] = counts[r] > 0 ? static_cast<std::size_t>(displs_in[r] - run.first) * one.bytes : 0;
  const auto* first = static_cast<const unsigned char*>(buf) + run.first * one.extent;
  return {Bytes::of(tally, scratch, first, run.end - run.first, type), run.end - run.first};
}

// `counts` of `type` as bytes of its signature into `bytes`; an erroneous
// count or type on this rank alone is an error here, since leaving the
// call to the library on this rank would leave the others waiting.
const std::size_t* bytes_of(const char* call, const int* counts, MPI_Datatype type, int n,
                            std::vector<std::size_t>& bytes) {
  const std::optional<Layout> one = layout_of(1, type);
  if (!one || !as_counts(counts, n, bytes))
    throw Error(std::string(call) + ": a negative count or a null datatype on this rank");
  for (std::size_t& b : bytes) b *= one->bytes;
  return bytes.data();
}

Layout one_of(const char* call, MPI_Datatype type) {
  const std::optional<Layout> one = layout_of(1, type);
  if (!one) throw Error(std::string(call) + ": a null datatype on this rank");
  return *one;
}

// This rank's own block in bytes, as bytes_of judges it.
std::size_t own_bytes(const char* call, int count, MPI_Datatype type) {
  if (count < 0) throw Error(std::string(call) + ": a negative count on this rank");
  return static_cast<std::size_t>(count) * one_of(call, type).bytes;
}

// allgatherv: the decision rests on recvcounts (equal on every rank) and
// the bytes of the type signature; each rank's displacements and datatype
// are its own.
const char* allgatherv(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const int* recvcounts, const int* rdispls,
                       MPI_Datatype recvtype) {
  const KeptCall call{rt.serial(), 0, recvtype, MPI_OP_NULL, 0};
  // No counts (an erroneous call) are read only by the conversion, which refuses them.
  const std::span<const int> counts(recvcounts, recvcounts ? rt.size() : 0);
  if (recvcounts && kept_before(rt, CCT_ALLGATHERV, call, counts)) return kKeptAsBefore;
  thread_local std::vector<std::size_t> bytes, displs;
  const std::optional<Layout> one = layout_of(1, recvtype);
  if (!one || !as_counts(recvcounts, rt.size(), bytes)) return kArguments;
  for (std::size_t& b : bytes) b *= one->bytes;
  if (std::all_of(bytes.begin(), bytes.end(), [](std::size_t n) { return n == 0; }))
    return kMovesNothing;
  cct_coll_args args = in(memory_of(rt, CCT_ALLGATHERV, sendbuf, recvbuf),
                          make_call(CCT_ALLGATHERV, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0));
  args.recvcounts = bytes.data();
  if (keeps(rt, args, call, one->predefined, counts)) return kKeptOnLibrary;
  PackTally tally;
  Span all = span_of(tally, receive_scratch(), recvbuf, recvcounts, rdispls, recvtype, *one,
                     rt.size(), displs);
  if (!all.bytes) return kArguments;
  args.rdispls = displs.data();
  args.recvbuf = all.bytes->in_out(0, all.elements);
  std::optional<Bytes> send;
  if (sendbuf == MPI_IN_PLACE) {
    args.sendbuf = CCT_IN_PLACE;
  } else {
    send = Bytes::of(tally, send_scratch(), sendbuf, sendcount, sendtype);
    if (!send) return kArguments;
    expect_size("MPI_Allgatherv", send->size(), bytes[rt.rank()]);
    args.sendbuf = send->input();
  }
  rt.run(args);
  all.bytes->unpack();
  count_packing(CCT_ALLGATHERV, tally);
  return nullptr;
}

// gatherv, scatterv and alltoallv: no rank knows the others' counts, so
// the decision rests on the root and on the sum of every rank's share,
// which the runtime agrees on where the profile's choice depends on it.
const char* gatherv(Runtime& rt, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                    int root) {
  if (bad_root(rt, root)) return kArguments;
  const bool at_root = rt.rank() == root, in_place = at_root && sendbuf == MPI_IN_PLACE;
  thread_local std::vector<std::size_t> bytes, displs;
  if (at_root) bytes_of("MPI_Gatherv", recvcounts, recvtype, rt.size(), bytes);
  const std::size_t mine = in_place ? bytes[root] : own_bytes("MPI_Gatherv", sendcount, sendtype);
  cct_coll_args args = in(memory_of(rt, CCT_GATHERV, sendbuf, at_root ? recvbuf : nullptr),
                          make_call(CCT_GATHERV, nullptr, nullptr, mine, CCT_UINT8, CCT_SUM, root));
  if (at_root) args.recvcounts = bytes.data();
  if (rt.keeps_library(args)) return kKeptOnLibrary;
  PackTally tally;
  Span all;
  if (at_root) {
    all = span_of(tally, receive_scratch(), recvbuf, recvcounts, rdispls, recvtype,
                  one_of("MPI_Gatherv", recvtype), rt.size(), displs);
    args.rdispls = displs.data();
    args.recvbuf = all.bytes->in_out(0, all.elements);
  }
  std::optional<Bytes> send;
  if (in_place) {
    args.sendbuf = CCT_IN_PLACE;
  } else {
    send = Bytes::of(tally, send_scratch(), sendbuf, sendcount, sendtype);
    args.sendbuf = send->input();
  }
  rt.run(args);
  if (at_root) all.bytes->unpack();
  count_packing(CCT_GATHERV, tally);
  return nullptr;
}

const char* scatterv(Runtime& rt, const void* sendbuf, const int* sendcounts, const int* sdispls,
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root) {
  if (bad_root(rt, root)) return kArguments;
  const bool at_root = rt.rank() == root, in_place = at_root && recvbuf == MPI_IN_PLACE;
  thread_local std::vector<std::size_t> bytes, displs;
  if (at_root) bytes_of("MPI_Scatterv", sendcounts, sendtype, rt.size(), bytes);
  const std::size_t mine = in_place ? bytes[root] : own_bytes("MPI_Scatterv", recvcount, recvtype);
  cct_coll_args args =
      in(memory_of(rt, CCT_SCATTERV, at_root ? sendbuf : nullptr, recvbuf),
         make_call(CCT_SCATTERV, nullptr, nullptr, mine, CCT_UINT8, CCT_SUM, root));
  if (at_root) args.sendcounts = bytes.data();
  if (rt.keeps_library(args)) return kKeptOnLibrary;
  PackTally tally;
  Span all;
  if (at_root) {
    all = span_of(tally, send_scratch(), sendbuf, sendcounts, sdispls, sendtype,
                  one_of("MPI_Scatterv", sendtype), rt.size(), displs);
    args.sdispls = displs.data();
    args.sendbuf = all.bytes->input();
  }
  std::optional<Bytes> mine_out;
  if (in_place) {
    args.recvbuf = CCT_IN_PLACE;
  } else {
    mine_out = Bytes::of(tally, receive_scratch(), recvbuf, recvcount, recvtype);
    args.recvbuf = mine_out->output();
  }
  rt.run(args);
  if (mine_out) mine_out->unpack();
  count_packing(CCT_SCATTERV, tally);
  return nullptr;
}

const char* alltoallv(Runtime& rt, const void* sendbuf, const int* sendcounts, const int* sdispls,
                      MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                      const int* rdispls, MPI_Datatype recvtype) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  thread_local std::vector<std::size_t> send_bytes, recv_bytes, send_displs, recv_displs;
  cct_coll_args args = in(memory_of(rt, CCT_ALLTOALLV, sendbuf, recvbuf),
                          make_call(CCT_ALLTOALLV, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0));
  args.recvcounts = bytes_of("MPI_Alltoallv", recvcounts, recvtype, rt.size(), recv_bytes);
  args.sendcounts = in_place
                        ? args.recvcounts
                        : bytes_of("MPI_Alltoallv", sendcounts, sendtype, rt.size(), send_bytes);
  if (rt.keeps_library(args)) return kKeptOnLibrary;
  PackTally tally;
  Span all = span_of(tally, receive_scratch(), recvbuf, recvcounts, rdispls, recvtype,
                     one_of("MPI_Alltoallv", recvtype), rt.size(), recv_displs);
  args.rdispls = recv_displs.data();
  args.recvbuf = all.bytes->in_out(0, all.elements);
  Span out;
  if (in_place) {
    args.sendbuf = CCT_IN_PLACE;
    args.sdispls = args.rdispls;
  } else {
    out = span_of(tally, send_scratch(), sendbuf, sendcounts, sdispls, sendtype,
                  one_of("MPI_Alltoallv", sendtype), rt.size(), send_displs);
    args.sdispls = send_displs.data();
    args.sendbuf = out.bytes->input();
  }
  rt.run(args);
  all.bytes->unpack();
  count_packing(CCT_ALLTOALLV, tally);
  return nullptr;
}

}  // namespace cct::interposer
