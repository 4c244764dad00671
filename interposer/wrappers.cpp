// The MPI interposer's MPI_* symbols (PMPI profiling interface): preloaded
// before libmpi, they run each supported collective call on the runtime of
// its communicator (calls.hpp says how, and which calls it takes) and leave
// everything else to the MPI library, counted with the reason (see
// pass_through.hpp).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "calls.hpp"
#include "cct/error.hpp"
#include "comm_runtimes.hpp"
#include "device_mirror.hpp"
#include "kept_calls.hpp"
#include "memory_kinds.hpp"
#include "mpi_types.hpp"
#include "packing.hpp"
#include "pass_through.hpp"
#include "reentry.hpp"
#include "run_again.hpp"

namespace cct::interposer {
namespace {

// One write per line, so that the lines of ranks failing together do not
// interleave.
void say_line(const std::string& line) {
  if (::write(STDERR_FILENO, line.data(), line.size()) < 0) return;  // nowhere left to say it
}

// After a wait timed out (CCT_TIMEOUT) the ranks are out of step and some
// may never return: an error code would leave the others hanging where
// this one gave up, so the job ends, as MPI ends it on a fatal error.
void abort_on_timeout(MPI_Comm comm, const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  if (error == nullptr || error->status() != CCT_ERR_TIMEOUT) return;
  say_line("cct: aborting the job (MPI_Abort) after the timeout above\n");
  PMPI_Abort(comm, 1);
}

// A call of a collective kept on the library for every size
// (Runtime::library_for_every_call), handed over as made.
const char* const kKeptUntouched = "kept on the library for every size";

// How a call goes on where its communicator's runtime has a device
// transport: as made where none of its buffers is in device memory; with
// its device buffers as they are where the runtime may run an algorithm on
// device memory for it (Runtime::agrees_on_memory) and takes them as they
// are (contiguous); else mirrored in host memory (device_mirror.hpp). A
// call the runtime leaves to the library is mirrored then too.
enum class Path { kAsMade, kDirect, kMirrored };

Path path_of(Runtime& rt, cct_collective collective, const Sides& sides) {
  bool on_device = false, as_they_are = true;
  for (const Side& side : sides)
    if (side.buf != nullptr && memory_kind(rt.device_transport(), *side.buf) == CCT_MEMORY_DEVICE) {
      on_device = true;
      as_they_are = as_they_are && contiguous(side);
    }
  if (!on_device) return Path::kAsMade;
  return rt.agrees_on_memory(collective) && as_they_are ? Path::kDirect : Path::kMirrored;
}

// What a call failing in the interposer returns, after saying why.
int failed(MPI_Comm comm, const std::exception& e) {
  say_line(std::string("cct: ") + e.what() + "\n");
  abort_on_timeout(comm, e);
  PMPI_Comm_call_errhandler(comm, MPI_ERR_INTERN);
  return MPI_ERR_INTERN;
}

// The call on comm's runtime (entry): ours(runtime) -> reason (null: it
// ran the call), or the reason the library is to take it. A collective the
// runtime keeps on the library for every call at the call's root (0 for
// a collective without one) is not converted at all,
// at the cost of a lookup, where the library answers the call as the
// runtime would (`alike()`: false for the reductions that
// library_answers_otherwise() names; asked only then, so that other calls
// do not pay for it). `reaches(rank, size)` says what the call reaches of
// its buffers on this rank (device_mirror.hpp), asked only where the
// runtime has a device transport; `remembers(runtime)` is told of a call
// the runtime ran (run_again.hpp); `mirror` is left holding the device
// buffers the library is to take in host memory.
template <class Ours, class Reaches, class Alike, class Remembers>
const char* decide(CommRuntime& entry, cct_collective collective, int root, Ours&& ours,
                   Reaches&& reaches, Alike&& alike, Remembers&& remembers,
                   std::optional<Mirror>& mirror) {
  Runtime* rt = entry.runtime();
  if (rt == nullptr) return entry.refused.c_str();
  Sides sides{};
  Path path = Path::kAsMade;
  if (rt->device_transport() != nullptr) {
    sides = reaches(rt->rank(), rt->size());
    path = path_of(*rt, collective, sides);
  }
  if (path == Path::kMirrored) mirror.emplace(rt->device_transport(), sides);
  const char* reason =
      rt->library_for_every_call(collective, root) && alike() ? kKeptUntouched : ours(*rt);
  if (reason == nullptr) remembers(*rt);
  if (reason == nullptr || reason == kMovesNothing) {
    if (mirror) mirror->restore();
    mirror.reset();
  } else if (path == Path::kDirect) {
    mirror.emplace(rt->device_transport(), sides);
  }
  return reason;
}

// Runs the call as decide() says, on the runtime or through pmpi() with
// the reason counted. The runtime is made on the communicator's first call
// whatever its arguments: that is collective.
template <class Pmpi, class Ours, class Reaches, class Alike, class Remembers>
int intercept(cct_collective collective, MPI_Comm comm, int root, Pmpi&& pmpi, Ours&& ours,
              Reaches&& reaches, Alike&& alike, Remembers&& remembers) {
  if (Reentry::inside() || comm == MPI_COMM_NULL) return pmpi();
  const char* reason = nullptr;
  std::optional<Mirror> mirror;
  {
    Reentry inside;
    try {
      reason = decide(runtime_of(comm), collective, root, ours, reaches, alike, remembers, mirror);
    } catch (const std::exception& e) {
      return failed(comm, e);
    }
  }
  if (reason == nullptr) return MPI_SUCCESS;
  if (reason == kMovesNothing) {
    count_moved_nothing(collective);
    return MPI_SUCCESS;
  }
  if (reason == kKeptUntouched)
    count_kept_untouched(collective);
  else if (reason == kKeptOnLibrary || reason == kKeptAsBefore)
    count_kept_on_library(collective, reason == kKeptAsBefore);
  else
    count_pass_through(collective, reason);
  const int rc = pmpi();
  if (!mirror) return rc;
  Reentry inside;
  try {
    mirror->restore();
  } catch (const std::exception& e) {
    return failed(comm, e);
  }
  return rc;
}

// Whether a call goes to the library at once, counted: the communicator's
// runtime, as this thread last looked it up, keeps the collective on the
// library for every call at the call's root, and no device transport may
// make it look at the buffers. Each MPI_* symbol asks first and then
// calls PMPI_* itself, everything else in a function of its own
// (interposed_*), so that a call kept untouched builds no frame for the
// rest: it costs a thread-local lookup and a count (the library's own
// small calls take 60-600 ns on the project's 2-core machine).
// `alike`: as intercept's.
template <class Alike>
[[gnu::always_inline]] inline bool kept_untouched(cct_collective collective, MPI_Comm comm,
                                                  int root, Alike&& alike) {
  const Runtime* rt = cached_runtime(comm);
  if (rt == nullptr || Reentry::inside() || rt->device_transport() != nullptr ||
      !rt->library_for_every_call(collective, root) || !alike())
    return false;
  count_kept_untouched(collective);
  return true;
}

[[gnu::always_inline]] inline bool kept_untouched(cct_collective collective, MPI_Comm comm,
                                                  int root = 0) {
  return kept_untouched(collective, comm, root, [] { return true; });
}

// Whether a call goes to the library at once, counted: as kept_untouched(),
// or as the same call as this thread's last one of the collective that
// the communicator's runtime kept on the library for its size
// (kept_calls.hpp): the decision rests on MPI's arguments alone, so the
// same ones are decided alike. It costs kept_untouched()'s lookup and a
// comparison. `same(runtime)`: whether the call is the one remembered,
// by the count and type the runtime's decision reads (calls.cpp: the
// root's receive side of a gather, its send side of a scatter, the receive
// side of allgather and alltoall), a reduction's operator, and the counts
// of the collectives decided by them.
template <class Alike, class Same>
[[gnu::always_inline]] inline bool kept_at_once(cct_collective collective, MPI_Comm comm, int root,
                                                Alike&& alike, Same&& same) {
  const Runtime* rt = cached_runtime(comm);
  if (rt == nullptr || Reentry::inside() || rt->device_transport() != nullptr) return false;
  if (rt->library_for_every_call(collective, root) && alike()) {
    count_kept_untouched(collective);
    return true;
  }
  if (!same(*rt)) return false;
  count_kept_as_before(collective);
  return true;
}

// kept_at_once's `same` of a call of `count` x `type` (and `op`) at `root`.
[[gnu::always_inline]] inline auto call_of(cct_collective c, int64_t count, MPI_Datatype type,
                                           MPI_Op op, int root) {
  return [=](const Runtime& rt) {
    return last_kept_calls[c] == KeptCall{rt.serial(), count, type, op, root};
  };
}

// The same for a rooted call whose decision reads the root's side and the
// others' own (gather, scatter).
[[gnu::always_inline]] inline auto call_of(cct_collective c, int root, int at_root_count,
                                           MPI_Datatype at_root_type, int elsewhere_count,
                                           MPI_Datatype elsewhere_type) {
  return [=](const Runtime& rt) {
    return last_kept_calls[c] ==
           (rt.rank() == root
                ? KeptCall{rt.serial(), at_root_count, at_root_type, MPI_OP_NULL, root}
                : KeptCall{rt.serial(), elsewhere_count, elsewhere_type, MPI_OP_NULL, root});
  };
}

// The same for a collective decided by per-rank counts (decided_by_counts).
[[gnu::always_inline]] inline auto call_of(cct_collective c, const int* counts, MPI_Datatype type,
                                           MPI_Op op) {
  return [=](const Runtime& rt) {
    if (counts == nullptr || !(last_kept_calls[c] == KeptCall{rt.serial(), 0, type, op, 0}))
      return false;
    return last_kept_counts[counts_slot(c)].holds(counts, rt.size());
  };
}

constexpr auto kAlways = [] { return true; };

// intercept's `remembers` of a collective whose calls are not remembered.
constexpr auto kForgets = [](Runtime&) {};

// intercept() of a collective whose calls are not remembered.
template <class Pmpi, class Ours, class Reaches>
int intercept(cct_collective collective, MPI_Comm comm, int root, Pmpi&& pmpi, Ours&& ours,
              Reaches&& reaches) {
  return intercept(collective, comm, root, pmpi, ours, reaches, kAlways, kForgets);
}

// intercept's `remembers` of a call of collective c by `key(runtime)`
// (run_again.hpp) with MPI's buffers.
template <class Key>
auto remembers(cct_collective c, const Key& key, const void* sendbuf, const void* recvbuf) {
  return [c, &key, sendbuf, recvbuf](Runtime& rt) { remember(rt, c, key(rt), sendbuf, recvbuf); };
}

// The runtime of a call that goes to it at once: the same call, by
// `key(runtime)` and its MPI buffers, as this thread's last one of the
// collective that the communicator's runtime ran (run_again.hpp); else
// null. It costs kept_at_once()'s lookup and a comparison. Asked first in
// each interposed_* function, not in the MPI_* symbol, so that a call
// kept on the library does not pay for its frame.
template <class Key>
[[gnu::always_inline]] inline Runtime* ran_before(cct_collective c, MPI_Comm comm, Key&& key,
                                                  const void* sendbuf, const void* recvbuf) {
  Runtime* rt = cached_runtime(comm);
  if (rt == nullptr || Reentry::inside()) return nullptr;
  const PreparedCall& call = prepared_calls[c];
  if (call.runtime != rt->serial()) return nullptr;
  CallKey now = key(*rt);
  now.in_place = in_place_of(sendbuf, recvbuf);
  return call.key == now ? rt : nullptr;
}

// Runs a call that ran_before() found, with its MPI buffers, counted.
int run_again(Runtime& rt, cct_collective c, MPI_Comm comm, const void* sendbuf, void* recvbuf) {
  count_run_again(c);
  Reentry inside;
  try {
    rt.run_again(with_buffers(prepared_calls[c], sendbuf, recvbuf));
  } catch (const std::exception& e) {
    return failed(comm, e);
  }
  return MPI_SUCCESS;
}

// The CallKey (run_again.hpp) of a reduction's call, and of a collective
// whose sides are both significant on every rank: allgather and alltoall
// (MPI_IN_PLACE: the send side is not).
auto reduction_key(int count, MPI_Datatype type, MPI_Op op, int root) {
  return [=](const Runtime&) { return CallKey{.recv = {count, type}, .op = op, .root = root}; };
}
auto to_all_key(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                MPI_Datatype recvtype) {
  return [=](const Runtime&) {
    return CallKey{.send = side_if(sendbuf != MPI_IN_PLACE, sendcount, sendtype),
                   .recv = {recvcount, recvtype}};
  };
}

// intercept's `alike` for a reduction of `type` with `op`.
auto alike(MPI_Datatype type, MPI_Op op) {
  return [type, op] { return !library_answers_otherwise(type, op); };
}

// n blocks of count each: what a rank of n sends or receives in all.
int64_t times(int n, int count) {
  return int64_t{n} * count;
}

}  // namespace
}  // namespace cct::interposer

using namespace cct::interposer;
using cct::Runtime;

extern "C" {

// The runtime serves every thread level (comm_runtimes.hpp says how).
int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) start();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start();
  return rc;
}

int MPI_Finalize() {
  {
    Reentry inside;
    finish();
    const char* stats = std::getenv("CCT_STATS");
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (stats != nullptr && std::string(stats) != "0" && *stats != '\0') {
      // Every rank that packed says so (a root may take its data as it is
      // while the others pack); the calls passed to the library are the
      // same on every rank, rank 0 prints them.
      std::ostringstream tables;  // one write: other ranks print at the same time
      print_gathered_stats(tables, rank);
      print_packing(tables, rank);
      if (rank == 0) {
        print_pass_through(tables);
        print_run_again(tables);
      }
      std::cerr << tables.str() << std::flush;
    }
  }
  return PMPI_Finalize();
}

// MPI_Barrier where kept_untouched() does not hand it over.
[[gnu::noinline]] static int interposed_barrier(MPI_Comm comm) {
  const auto key = [](const Runtime&) { return CallKey{}; };
  if (Runtime* rt = ran_before(CCT_BARRIER, comm, key, nullptr, nullptr))
    return run_again(*rt, CCT_BARRIER, comm, nullptr, nullptr);
  return intercept(
      CCT_BARRIER, comm, 0, [&] { return PMPI_Barrier(comm); },
      [&](Runtime& rt) { return barrier(rt); }, [](int, int) { return Sides{}; }, kAlways,
      remembers(CCT_BARRIER, key, nullptr, nullptr));
}

int MPI_Barrier(MPI_Comm comm) {
  if (kept_untouched(CCT_BARRIER, comm)) return PMPI_Barrier(comm);
  return interposed_barrier(comm);
}

// MPI_Bcast where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_bcast(void* buf, int count, MPI_Datatype type, int root,
                                              MPI_Comm comm) {
  const auto key = [=](const Runtime&) { return CallKey{.recv = {count, type}, .root = root}; };
  if (Runtime* rt = ran_before(CCT_BCAST, comm, key, nullptr, buf))
    return run_again(*rt, CCT_BCAST, comm, nullptr, buf);
  return intercept(
      CCT_BCAST, comm, root, [&] { return PMPI_Bcast(buf, count, type, root, comm); },
      [&](Runtime& rt) { return bcast(rt, buf, count, type, root); },
      [&](int rank, int) { return Sides{block(buf, count, type, rank != root)}; }, kAlways,
      remembers(CCT_BCAST, key, nullptr, buf));
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (kept_at_once(CCT_BCAST, comm, root, kAlways,
                   call_of(CCT_BCAST, count, type, MPI_OP_NULL, root)))
    return PMPI_Bcast(buf, count, type, root, comm);
  return interposed_bcast(buf, count, type, root, comm);
}

// MPI_Gather where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_gather(const void* sendbuf, int sendcount,
                                               MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  // The root's receive side, and its send side unless in place; the
  // others' send side.
  const auto key = [=](const Runtime& rt) {
    return CallKey{.send = side_if(sendbuf != MPI_IN_PLACE, sendcount, sendtype),
                   .recv = side_if(rt.rank() == root, recvcount, recvtype),
                   .root = root};
  };
  if (Runtime* rt = ran_before(CCT_GATHER, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_GATHER, comm, sendbuf, recvbuf);
  return intercept(
      CCT_GATHER, comm, root,
      [&] {
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&](Runtime& rt) {
        return gather(rt, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
      },
      [&](int rank, int size) {
        if (rank != root) return Sides{block(sendbuf, sendcount, sendtype, false)};
        return Sides{block(sendbuf, sendcount, sendtype, false),
                     block(recvbuf, times(size, recvcount), recvtype, true)};
      },
      kAlways, remembers(CCT_GATHER, key, sendbuf, recvbuf));
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (kept_at_once(CCT_GATHER, comm, root, kAlways,
                   call_of(CCT_GATHER, root, recvcount, recvtype, sendcount, sendtype)))
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return interposed_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

// MPI_Scatter where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_scatter(const void* sendbuf, int sendcount,
                                                MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  // The root's send side, and its receive side unless in place; the
  // others' receive side.
  const auto key = [=](const Runtime& rt) {
    return CallKey{.send = side_if(rt.rank() == root, sendcount, sendtype),
                   .recv = side_if(recvbuf != MPI_IN_PLACE, recvcount, recvtype),
                   .root = root};
  };
  if (Runtime* rt = ran_before(CCT_SCATTER, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_SCATTER, comm, sendbuf, recvbuf);
  return intercept(
      CCT_SCATTER, comm, root,
      [&] {
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&](Runtime& rt) {
        return scatter(rt, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
      },
      [&](int rank, int size) {
        if (rank != root) return Sides{block(recvbuf, recvcount, recvtype, true)};
        return Sides{block(sendbuf, times(size, sendcount), sendtype, false),
                     block(recvbuf, recvcount, recvtype, true)};
      },
      kAlways, remembers(CCT_SCATTER, key, sendbuf, recvbuf));
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (kept_at_once(CCT_SCATTER, comm, root, kAlways,
                   call_of(CCT_SCATTER, root, sendcount, sendtype, recvcount, recvtype)))
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return interposed_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

// MPI_Reduce where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_reduce(const void* sendbuf, void* recvbuf, int count,
                                               MPI_Datatype type, MPI_Op op, int root,
                                               MPI_Comm comm) {
  const auto key = reduction_key(count, type, op, root);
  if (Runtime* rt = ran_before(CCT_REDUCE, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_REDUCE, comm, sendbuf, recvbuf);
  return intercept(
      CCT_REDUCE, comm, root,
      [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); },
      [&](Runtime& rt) { return reduce(rt, sendbuf, recvbuf, count, type, op, root); },
      [&](int rank, int) {
        if (rank != root) return Sides{block(sendbuf, count, type, false)};
        return Sides{block(sendbuf, count, type, false), block(recvbuf, count, type, true)};
      },
      alike(type, op), remembers(CCT_REDUCE, key, sendbuf, recvbuf));
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  if (kept_at_once(CCT_REDUCE, comm, root, alike(type, op),
                   call_of(CCT_REDUCE, count, type, op, root)))
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  return interposed_reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

// MPI_Allreduce where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_allreduce(const void* sendbuf, void* recvbuf, int count,
                                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const auto key = reduction_key(count, type, op, 0);
  if (Runtime* rt = ran_before(CCT_ALLREDUCE, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_ALLREDUCE, comm, sendbuf, recvbuf);
  return intercept(
      CCT_ALLREDUCE, comm, 0,
      [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); },
      [&](Runtime& rt) { return allreduce(rt, sendbuf, recvbuf, count, type, op); },
      [&](int, int) {
        return Sides{block(sendbuf, count, type, false), block(recvbuf, count, type, true)};
      },
      alike(type, op), remembers(CCT_ALLREDUCE, key, sendbuf, recvbuf));
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  if (kept_at_once(CCT_ALLREDUCE, comm, 0, alike(type, op),
                   call_of(CCT_ALLREDUCE, count, type, op, 0)))
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  return interposed_allreduce(sendbuf, recvbuf, count, type, op, comm);
}

// MPI_Allgather where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_allgather(const void* sendbuf, int sendcount,
                                                  MPI_Datatype sendtype, void* recvbuf,
                                                  int recvcount, MPI_Datatype recvtype,
                                                  MPI_Comm comm) {
  const auto key = to_all_key(sendbuf, sendcount, sendtype, recvcount, recvtype);
  if (Runtime* rt = ran_before(CCT_ALLGATHER, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_ALLGATHER, comm, sendbuf, recvbuf);
  return intercept(
      CCT_ALLGATHER, comm, 0,
      [&] {
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](Runtime& rt) {
        return allgather(rt, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      },
      [&](int, int size) {
        return Sides{block(sendbuf, sendcount, sendtype, false),
                     block(recvbuf, times(size, recvcount), recvtype, true)};
      },
      kAlways, remembers(CCT_ALLGATHER, key, sendbuf, recvbuf));
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (kept_at_once(CCT_ALLGATHER, comm, 0, kAlways,
                   call_of(CCT_ALLGATHER, recvcount, recvtype, MPI_OP_NULL, 0)))
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return interposed_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

// MPI_Alltoall where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_alltoall(const void* sendbuf, int sendcount,
                                                 MPI_Datatype sendtype, void* recvbuf,
                                                 int recvcount, MPI_Datatype recvtype,
                                                 MPI_Comm comm) {
  const auto key = to_all_key(sendbuf, sendcount, sendtype, recvcount, recvtype);
  if (Runtime* rt = ran_before(CCT_ALLTOALL, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_ALLTOALL, comm, sendbuf, recvbuf);
  return intercept(
      CCT_ALLTOALL, comm, 0,
      [&] {
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](Runtime& rt) {
        return alltoall(rt, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      },
      [&](int, int size) {
        return Sides{block(sendbuf, times(size, sendcount), sendtype, false),
                     block(recvbuf, times(size, recvcount), recvtype, true)};
      },
      kAlways, remembers(CCT_ALLTOALL, key, sendbuf, recvbuf));
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (kept_at_once(CCT_ALLTOALL, comm, 0, kAlways,
                   call_of(CCT_ALLTOALL, recvcount, recvtype, MPI_OP_NULL, 0)))
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return interposed_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

// MPI_Reduce_scatter_block where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_reduce_scatter_block(const void* sendbuf, void* recvbuf,
                                                             int recvcount, MPI_Datatype type,
                                                             MPI_Op op, MPI_Comm comm) {
  const auto key = reduction_key(recvcount, type, op, 0);
  if (Runtime* rt = ran_before(CCT_REDUCE_SCATTER_BLOCK, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_REDUCE_SCATTER_BLOCK, comm, sendbuf, recvbuf);
  return intercept(
      CCT_REDUCE_SCATTER_BLOCK, comm, 0,
      [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); },
      [&](Runtime& rt) { return reduce_scatter_block(rt, sendbuf, recvbuf, recvcount, type, op); },
      [&](int, int size) {
        // In place, the receive side holds the whole input.
        const int64_t received = sendbuf == MPI_IN_PLACE ? times(size, recvcount) : recvcount;
        return Sides{block(sendbuf, times(size, recvcount), type, false),
                     block(recvbuf, received, type, true)};
      },
      alike(type, op), remembers(CCT_REDUCE_SCATTER_BLOCK, key, sendbuf, recvbuf));
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  if (kept_at_once(CCT_REDUCE_SCATTER_BLOCK, comm, 0, alike(type, op),
                   call_of(CCT_REDUCE_SCATTER_BLOCK, recvcount, type, op, 0)))
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
  return interposed_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

// MPI_Reduce_scatter where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_reduce_scatter(const void* sendbuf, void* recvbuf,
                                                       const int recvcounts[], MPI_Datatype type,
                                                       MPI_Op op, MPI_Comm comm) {
  return intercept(
      CCT_REDUCE_SCATTER, comm, 0,
      [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm); },
      [&](Runtime& rt) { return reduce_scatter(rt, sendbuf, recvbuf, recvcounts, type, op); },
      [&](int rank, int size) {
        if (recvcounts == nullptr) return Sides{};  // for the library to judge
        int64_t total = 0;
        for (int r = 0; r < size; ++r) total += recvcounts[r];
        const int64_t received = sendbuf == MPI_IN_PLACE ? total : recvcounts[rank];
        return Sides{block(sendbuf, total, type, false), block(recvbuf, received, type, true)};
      },
      alike(type, op), kForgets);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (kept_at_once(CCT_REDUCE_SCATTER, comm, 0, alike(type, op),
                   call_of(CCT_REDUCE_SCATTER, recvcounts, type, op)))
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  return interposed_reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}

// MPI_Allgatherv where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_allgatherv(const void* sendbuf, int sendcount,
                                                   MPI_Datatype sendtype, void* recvbuf,
                                                   const int recvcounts[], const int displs[],
                                                   MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      CCT_ALLGATHERV, comm, 0,
      [&] {
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               comm);
      },
      [&](Runtime& rt) {
        return allgatherv(rt, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
      },
      [&](int, int size) {
        return Sides{block(sendbuf, sendcount, sendtype, false),
                     blocks(recvbuf, recvcounts, displs, size, recvtype, true)};
      });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  if (kept_at_once(CCT_ALLGATHERV, comm, 0, kAlways,
                   call_of(CCT_ALLGATHERV, recvcounts, recvtype, MPI_OP_NULL)))
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  return interposed_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               comm);
}

// MPI_Scan where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_scan(const void* sendbuf, void* recvbuf, int count,
                                             MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const auto key = reduction_key(count, type, op, 0);
  if (Runtime* rt = ran_before(CCT_SCAN, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_SCAN, comm, sendbuf, recvbuf);
  return intercept(
      CCT_SCAN, comm, 0, [&] { return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm); },
      [&](Runtime& rt) { return scan(rt, sendbuf, recvbuf, count, type, op); },
      [&](int, int) {
        return Sides{block(sendbuf, count, type, false), block(recvbuf, count, type, true)};
      },
      alike(type, op), remembers(CCT_SCAN, key, sendbuf, recvbuf));
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  if (kept_at_once(CCT_SCAN, comm, 0, alike(type, op), call_of(CCT_SCAN, count, type, op, 0)))
    return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  return interposed_scan(sendbuf, recvbuf, count, type, op, comm);
}

// MPI_Exscan where kept_at_once() does not hand it over.
[[gnu::noinline]] static int interposed_exscan(const void* sendbuf, void* recvbuf, int count,
                                               MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const auto key = reduction_key(count, type, op, 0);
  if (Runtime* rt = ran_before(CCT_EXSCAN, comm, key, sendbuf, recvbuf))
    return run_again(*rt, CCT_EXSCAN, comm, sendbuf, recvbuf);
  return intercept(
      CCT_EXSCAN, comm, 0, [&] { return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm); },
      [&](Runtime& rt) { return exscan(rt, sendbuf, recvbuf, count, type, op); },
      [&](int, int) {
        return Sides{block(sendbuf, count, type, false), block(recvbuf, count, type, true)};
      },
      alike(type, op), remembers(CCT_EXSCAN, key, sendbuf, recvbuf));
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  if (kept_at_once(CCT_EXSCAN, comm, 0, alike(type, op), call_of(CCT_EXSCAN, count, type, op, 0)))
    return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
  return interposed_exscan(sendbuf, recvbuf, count, type, op, comm);
}

// MPI_Gatherv where kept_untouched() does not hand it over.
[[gnu::noinline]] static int interposed_gatherv(const void* sendbuf, int sendcount,
                                                MPI_Datatype sendtype, void* recvbuf,
                                                const int recvcounts[], const int displs[],
                                                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return intercept(
      CCT_GATHERV, comm, root,
      [&] {
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm);
      },
      [&](Runtime& rt) {
        return gatherv(rt, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                       root);
      },
      [&](int rank, int size) {
        if (rank != root) return Sides{block(sendbuf, sendcount, sendtype, false)};
        return Sides{block(sendbuf, sendcount, sendtype, false),
                     blocks(recvbuf, recvcounts, displs, size, recvtype, true)};
      });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (kept_untouched(CCT_GATHERV, comm, root))
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
  return interposed_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm);
}

// MPI_Scatterv where kept_untouched() does not hand it over.
[[gnu::noinline]] static int interposed_scatterv(const void* sendbuf, const int sendcounts[],
                                                 const int displs[], MPI_Datatype sendtype,
                                                 void* recvbuf, int recvcount,
                                                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return intercept(
      CCT_SCATTERV, comm, root,
      [&] {
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm);
      },
      [&](Runtime& rt) {
        return scatterv(rt, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                        root);
      },
      [&](int rank, int size) {
        if (rank != root) return Sides{block(recvbuf, recvcount, recvtype, true)};
        return Sides{blocks(sendbuf, sendcounts, displs, size, sendtype, false),
                     block(recvbuf, recvcount, recvtype, true)};
      });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (kept_untouched(CCT_SCATTERV, comm, root))
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
  return interposed_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm);
}

// MPI_Alltoallv where kept_untouched() does not hand it over.
[[gnu::noinline]] static int interposed_alltoallv(const void* sendbuf, const int sendcounts[],
                                                  const int sdispls[], MPI_Datatype sendtype,
                                                  void* recvbuf, const int recvcounts[],
                                                  const int rdispls[], MPI_Datatype recvtype,
                                                  MPI_Comm comm) {
  return intercept(
      CCT_ALLTOALLV, comm, 0,
      [&] {
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm);
      },
      [&](Runtime& rt) {
        return alltoallv(rt, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype);
      },
      [&](int, int size) {
        return Sides{blocks(sendbuf, sendcounts, sdispls, size, sendtype, false),
                     blocks(recvbuf, recvcounts, rdispls, size, recvtype, true)};
      });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (kept_untouched(CCT_ALLTOALLV, comm))
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  return interposed_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm);
}

}  // extern "C"
