#include "comm_runtimes.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include "cct/error.hpp"
#include "keyval_once.hpp"
#include "mpi_bootstrap.hpp"
#include "reentry.hpp"

namespace cct::interposer {

[[gnu::tls_model("initial-exec")]] constinit thread_local LastLookedUp last_looked_up{};
std::atomic<uint64_t> runtime_deletions{0};

namespace {

// Under MPI_THREAD_MULTIPLE, collectives on different communicators run at
// once from different threads. What a communicator owns needs no lock (MPI
// forbids concurrent collectives on one communicator); what they share is
// made safe here: the keyval and the list of runtimes alive under a lock,
// taken only when a communicator is made or freed and never across a
// collective step (ranks locked in different orders would wait for each
// other); the plugins, topology and profile loaded once; and the last
// communicator looked up kept per thread.
std::mutex shared;
std::atomic<int> keyval{MPI_KEYVAL_INVALID};

// Plugins, topology and profile, loaded once for all communicators (at
// MPI_Init, or on the first communicator), or why they could not be.
std::once_flag basis_once;
std::shared_ptr<const SessionBasis> basis;
std::string basis_error;

struct Alive {
  MPI_Comm comm;
  CommRuntime* entry;
};
std::vector<Alive> alive;  // in the order they were made

// With CCT_STATS, the rows of the communicators this process was rank 0 of,
// summed by (label, collective, algorithm), world first, then self, then by
// size; and how many communicators had calls under each label.
using StatsKey = std::tuple<int, std::string, int, std::string>;
std::map<StatsKey, StatsRow> gathered;
std::map<std::string, int> led;

void gather_stats(CommRuntime& entry) {
  if (!entry.session) return;
  const std::vector<StatsRow> rows = entry.session->take_stats();
  if (rows.empty()) return;
  ++led[entry.label];
  const int order = entry.label == "world" ? 0 : entry.label == "self" ? 1 : 2;
  for (const StatsRow& r : rows) {
    StatsRow& g = gathered[{order, entry.label, r.collective, r.algorithm}];
    g.communicators = entry.label;
    g.collective = r.collective;
    g.algorithm = r.algorithm;
    g.calls += r.calls;
    g.bytes += r.bytes;
    g.time += r.time;
  }
}

// The attribute's delete callback: MPI_Comm_free (collective) or finish().
int delete_runtime(MPI_Comm, int, void* value, void*) {
  auto* entry = static_cast<CommRuntime*>(value);
  Reentry inside;
  runtime_deletions.fetch_add(1, std::memory_order_release);
  {
    const std::lock_guard<std::mutex> lock(shared);
    gather_stats(*entry);
    std::erase_if(alive, [&](const Alive& a) { return a.entry == entry; });
  }
  delete entry;  // the session's teardown is collective over the communicator
  return MPI_SUCCESS;
}

// Why the runtime cannot serve comm, or "". Every rank reaches the same
// verdict: the test is about the communicator as a whole.
std::string refusal(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return "an intercommunicator (the runtime serves intracommunicators)";
  return "";
}

void load_basis() {
  std::call_once(basis_once, [] {
    try {
      int world_rank = 0;
      PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
      basis = SessionBasis::load(world_rank == 0);  // one process speaks for the job
    } catch (const std::exception& e) {
      basis_error = e.what();
    }
  });
}

// CCT_TRANSPORT when set (to test the mpi transport on one machine), else
// shm on one (possibly virtual, CCT_VIRTUAL_NODES) node and mpi between
// nodes, with shm inside each.
std::string transport_for(const Bootstrap& boot) {
  const char* forced = std::getenv("CCT_TRANSPORT");
  if (forced != nullptr && *forced != '\0') return forced;
  return boot.nodes() > 1 ? "mpi" : "shm";
}

// A communicator in the CCT_STATS table: world, self, or its size (one
// table row then sums every communicator of that size, however many a
// program made).
std::string label_of(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return "world";
  if (comm == MPI_COMM_SELF) return "self";
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return "size=" + std::to_string(size);
}

// Why a communicator's collectives go to the MPI library although the
// runtime was wanted, on stderr whatever CCT_LOG and CCT_STATS say: by its
// rank 0, and once per process and reason, so that a program making
// hundreds of communicators gets one line, not hundreds.
void say_refused_once(MPI_Comm comm, const std::string& why) {
  static std::set<std::string> said;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const std::lock_guard<std::mutex> lock(shared);
  // One write: other processes' lines must not fall inside this one.
  if (rank == 0 && said.insert(why).second)
    std::cerr << ("cct: " + why + " (communicator " + label_of(comm) +
                  "); its collectives go to the MPI library (said once per process)\n")
              << std::flush;
}

// The session of comm (collective over it), or the reason there is none.
// Every rank reaches the same outcome: the bootstrap is MPI's alone; a
// basis that failed to load on some rank (a node set up differently) is
// agreed on before anything else collective; the session agrees on what
// else a rank may lack, and a transport that fails to open on one rank
// fails on all (cct::Session, cct::TransportInstance).
void open_session(MPI_Comm comm, CommRuntime& entry) {
  entry.refused = refusal(comm);
  if (!entry.refused.empty()) return;
  load_basis();
  try {
    auto boot = std::make_unique<MpiBootstrap>(comm);
    const std::string transport = transport_for(*boot);
    agree(*boot, basis ? "" : basis_error, "the runtime cannot start", CCT_ERR_UNSUPPORTED);
    entry.session = std::make_unique<Session>(std::move(boot), Session::Binding::kKeepCurrent,
                                              transport, basis);
  } catch (const std::exception& e) {
    entry.refused = std::string("the runtime failed to open: ") + e.what();
  }
}

CommRuntime* make_runtime(MPI_Comm comm) {
  auto entry = std::make_unique<CommRuntime>();
  entry->label = label_of(comm);
  open_session(comm, *entry);
  if (!entry->refused.empty()) say_refused_once(comm, entry->refused);
  return entry.release();
}

int comm_keyval() {
  return keyval_once(keyval, shared, [](int* k) {
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_runtime, k, nullptr);
  });
}

}  // namespace

CommRuntime& runtime_of(MPI_Comm comm) {
  const uint64_t now = runtime_deletions.load(std::memory_order_acquire);
  LastLookedUp& last = last_looked_up;
  if (last.holds(comm, now)) return *last.entry;
  const int k = comm_keyval();
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, k, &value, &found);
  CommRuntime* entry = static_cast<CommRuntime*>(value);
  if (!found) {
    entry = make_runtime(comm);
    PMPI_Comm_set_attr(comm, k, entry);
    const std::lock_guard<std::mutex> lock(shared);
    alive.push_back({comm, entry});
  }
  last = {comm, entry, entry->runtime(), now};
  return *entry;
}

void start() {
  load_basis();
}

// MPI_Finalize is called by one thread, after the others are done with MPI.
void finish() {
  if (const int k = keyval.load(std::memory_order_acquire); k != MPI_KEYVAL_INVALID) {
    while (!alive.empty()) {
      const Alive first = alive.front();
      PMPI_Comm_delete_attr(first.comm, k);  // runs delete_runtime, which drops it
      if (!alive.empty() && alive.front().entry == first.entry) alive.erase(alive.begin());
    }
    int freed = k;
    PMPI_Comm_free_keyval(&freed);
    keyval.store(MPI_KEYVAL_INVALID, std::memory_order_release);
  }
  basis.reset();
}

void print_gathered_stats(std::ostream& out, int world_rank) {
  if (gathered.empty()) return;
  out << "cct stats, world rank " << world_rank << ": the communicators it was rank 0 of\n";
  std::vector<StatsRow> rows;
  for (const auto& [key, row] : gathered) {
    rows.push_back(row);
    rows.back().count = led[row.communicators];
  }
  print_stats_rows(out, rows);
}

}  // namespace cct::interposer
