#include "comm_runtimes.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "mpi_bootstrap.hpp"
#include "reentry.hpp"

namespace cct::interposer {
namespace {

int keyval = MPI_KEYVAL_INVALID;
int thread_level = MPI_THREAD_SINGLE;
// Plugins, topology and profile, loaded once for all communicators.
std::shared_ptr<const SessionBasis> basis;

struct Alive {
  MPI_Comm comm;
  CommRuntime* entry;
};
std::vector<Alive> alive;  // in the order they were made

// The communicator asked about last: programs call most of their collectives
// on one communicator, and an MPI attribute lookup costs more than the
// runtime's whole dispatch. Cleared when its entry is deleted, so a freed
// handle that MPI reuses for a new communicator is looked up afresh; not
// used under MPI_THREAD_MULTIPLE, where calls may come from several threads.
Alive last{MPI_COMM_NULL, nullptr};

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
  gather_stats(*entry);
  std::erase_if(alive, [&](const Alive& a) { return a.entry == entry; });
  if (last.entry == entry) last = {MPI_COMM_NULL, nullptr};
  delete entry;  // the session's teardown is collective over the communicator
  return MPI_SUCCESS;
}

// Why the runtime cannot serve comm, or "". Every rank reaches the same
// verdict: each test is about the communicator as a whole.
std::string refusal(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return "an intercommunicator";
  if (thread_level == MPI_THREAD_MULTIPLE)
    return "MPI_THREAD_MULTIPLE (the runtime is not thread-safe)";
  return "";
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
  if (rank == 0 && said.insert(why).second)
    std::cerr << "cct: " << why << " (communicator " << label_of(comm)
              << "); its collectives go to the MPI library (said once per process)\n";
}

CommRuntime* make_runtime(MPI_Comm comm) {
  auto entry = std::make_unique<CommRuntime>();
  entry->label = label_of(comm);
  entry->refused = refusal(comm);
  if (!entry->refused.empty()) return entry.release();
  try {
    if (!basis) {
      int world_rank = 0;
      PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
      basis = SessionBasis::load(world_rank == 0);  // one process speaks for the job
    }
    auto boot = std::make_unique<MpiBootstrap>(comm);
    const std::string transport = transport_for(*boot);
    entry->session = std::make_unique<Session>(std::move(boot), Session::Binding::kKeepCurrent,
                                               transport, basis);
  } catch (const std::exception& e) {
    entry->refused = std::string("the runtime failed to open: ") + e.what();
    say_refused_once(comm, entry->refused);
  }
  return entry.release();
}

}  // namespace

CommRuntime& runtime_of(MPI_Comm comm) {
  if (comm == last.comm && comm != MPI_COMM_NULL) return *last.entry;
  if (keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_runtime, &keyval, nullptr);
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval, &value, &found);
  CommRuntime* entry = static_cast<CommRuntime*>(value);
  if (!found) {
    entry = make_runtime(comm);
    PMPI_Comm_set_attr(comm, keyval, entry);
    alive.push_back({comm, entry});
  }
  if (thread_level != MPI_THREAD_MULTIPLE) last = {comm, entry};
  return *entry;
}

void set_thread_level(int provided) {
  thread_level = provided;
}

void finish() {
  if (keyval == MPI_KEYVAL_INVALID) return;
  while (!alive.empty()) {
    const Alive first = alive.front();
    PMPI_Comm_delete_attr(first.comm, keyval);  // runs delete_runtime, which drops it
    if (!alive.empty() && alive.front().entry == first.entry) alive.erase(alive.begin());
  }
  PMPI_Comm_free_keyval(&keyval);
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
