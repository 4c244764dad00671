// The MPI transport: point-to-point over the MPI library, so that every
// algorithm that needs only p2p runs between nodes unchanged.
//
// open() duplicates the MPI communicator the bootstrap runs on
// (cct_bootstrap.mpi_comm): no application message can match the runtime's,
// whatever tags or wildcards the application uses, because they live on
// different communicators. Requests are MPI requests kept in the caller's
// cct_request. A tag mismatch, which a shm channel reports at once, here
// waits as MPI would (forever, or until CCT_TIMEOUT); correct algorithms
// never mismatch.
#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cct/abi/export.h"
#include "cct/sdk/agree.hpp"
#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/backoff.hpp"

namespace cct::mpi_transport {
namespace {

struct Instance {
  cct_transport_instance c{};
  MPI_Comm comm = MPI_COMM_NULL;
  double timeout_s = 0;  // cct_bootstrap.timeout_s
  // Each rank's host (MPI_Get_processor_name) and its rank in
  // MPI_COMM_WORLD, for the message of a timed-out wait: comm may be a
  // node's group or the leaders', whose numbers mean nothing to a user.
  // Gathered only where some rank has a timeout.
  std::vector<std::string> hosts;
  std::vector<int> world_ranks;
};

Instance& of(cct_transport_instance* self) {
  return *static_cast<Instance*>(self->state);
}

// What a cct_request holds: the MPI request, and for the message of a
// timed-out wait, whom it was with.
struct Pending {
  MPI_Request request = MPI_REQUEST_NULL;
  int32_t peer = 0;
  bool send = false;
};
static_assert(sizeof(Pending) <= sizeof(cct_request), "a Pending must fit in a cct_request");

MPI_Request& new_request(cct_request* req, int32_t peer, bool send) {
  return (new (req->opaque) Pending{MPI_REQUEST_NULL, peer, send})->request;
}
Pending& pending(cct_request* req) {
  return *std::launder(reinterpret_cast<Pending*>(req->opaque));
}
MPI_Request& request(cct_request* req) {
  return pending(req).request;
}

// An MPI error code as the instance's last_error and a status.
cct_status failed(cct_transport_instance* self, const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  std::snprintf(self->last_error.message, sizeof self->last_error.message,
                "mpi transport: %s: %.200s", what, text);
  return CCT_ERR_TRANSPORT;
}

cct_status checked_count(cct_transport_instance* self, size_t bytes) {
  if (bytes <= static_cast<size_t>(INT_MAX)) return CCT_OK;
  std::snprintf(self->last_error.message, sizeof self->last_error.message,
                "mpi transport: a message of %zu bytes (the limit is %d)", bytes, INT_MAX);
  return CCT_ERR_UNSUPPORTED;
}

cct_status p2p_isend(cct_transport_instance* self, const void* buf, size_t bytes, int32_t peer,
                     uint32_t tag, cct_request* req) {
  if (cct_status s = checked_count(self, bytes); s != CCT_OK) return s;
  const int rc = MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, static_cast<int>(tag),
                           of(self).comm, &new_request(req, peer, true));
  return rc == MPI_SUCCESS ? CCT_OK : failed(self, "isend", rc);
}

cct_status p2p_irecv(cct_transport_instance* self, void* buf, size_t bytes, int32_t peer,
                     uint32_t tag, cct_request* req) {
  if (cct_status s = checked_count(self, bytes); s != CCT_OK) return s;
  const int rc = MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, peer, static_cast<int>(tag),
                           of(self).comm, &new_request(req, peer, false));
  return rc == MPI_SUCCESS ? CCT_OK : failed(self, "irecv", rc);
}

cct_status p2p_test(cct_transport_instance* self, cct_request* req, int* done) {
  const int rc = MPI_Test(&request(req), done, MPI_STATUS_IGNORE);
  return rc == MPI_SUCCESS ? CCT_OK : failed(self, "test", rc);
}

// "no progress for 2 s; waiting for rank 1 on node2 (receive), rank 1
// (world rank 3) on node4 (send)": the peers of the requests still open,
// their ranks in MPI_COMM_WORLD where those differ, and their hosts. Their
// processes may be on other hosts, so what they do is MPI's to find out.
cct_status timed_out(cct_transport_instance* self, cct_request* reqs, size_t count) {
  std::ostringstream text;
  text << "no progress for " << of(self).timeout_s << " s; waiting for";
  const char* separator = " ";
  for (size_t i = 0; i < count; ++i) {
    const Pending& p = pending(&reqs[i]);
    if (p.request == MPI_REQUEST_NULL) continue;
    text << separator << "rank " << p.peer;
    if (const int world = of(self).world_ranks.at(p.peer);
        world != p.peer && world != MPI_UNDEFINED)
      text << " (world rank " << world << ")";
    text << " on " << of(self).hosts.at(p.peer) << (p.send ? " (send)" : " (receive)");
    separator = ", ";
  }
  std::snprintf(self->last_error.message, sizeof self->last_error.message, "%s",
                text.str().c_str());
  return CCT_ERR_TIMEOUT;
}

// One round of MPI_Test over the open requests: whether any completed in
// it (*moved) and whether any is still open (*open).
cct_status test_round(cct_transport_instance* self, cct_request* reqs, size_t count, bool* moved,
                      bool* open) {
  *moved = *open = false;
  for (size_t i = 0; i < count; ++i) {
    MPI_Request& r = request(&reqs[i]);
    if (r == MPI_REQUEST_NULL) continue;
    int done = 0;
    if (const int rc = MPI_Test(&r, &done, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
      return failed(self, "test", rc);
    *moved = *moved || done;
    *open = *open || !done;
  }
  return CCT_OK;
}

// With a timeout the open requests are tested in rounds, with the SDK's
// Backoff between rounds that found nothing (cct/sdk/backoff.hpp). A
// message from another host takes tens of microseconds and a sleep costs
// at least the kernel's timer slack (about 50 us): sleeping after the
// first empty round made every wait across hosts several times slower (a
// barrier of 2 hosts took 120 us instead of 15, and the tuner, which
// always has a timeout, measured that). So a wait first tests for 2000
// rounds without sleeping, yielding the core between them, and only then
// sleeps; MPI_Test is the spin, so the Backoff spins no pause instructions.
cct_status wait_with_deadline(cct_transport_instance* self, cct_request* reqs, size_t count) {
  constexpr sdk::BackoffPhases kTestRounds{0, 2000, 1000, 64000};  // some ms of MPI_Test
  sdk::Backoff backoff(kTestRounds, of(self).timeout_s);
  for (;;) {
    bool moved = false, open = false;
    if (cct_status s = test_round(self, reqs, count, &moved, &open); s != CCT_OK) return s;
    if (!open) return CCT_OK;
    if (moved)
      backoff.reset();
    else if (!backoff.pause())
      return timed_out(self, reqs, count);
  }
}

// MPI progresses every pending operation inside each wait.
cct_status p2p_waitall(cct_transport_instance* self, cct_request* reqs, size_t count) {
  if (of(self).timeout_s > 0) return wait_with_deadline(self, reqs, count);
  for (size_t i = 0; i < count; ++i) {
    const int rc = MPI_Wait(&request(&reqs[i]), MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return failed(self, "wait", rc);
  }
  return CCT_OK;
}

const cct_p2p_ops kP2pOps = {sizeof(cct_p2p_ops), CCT_ABI_VERSION, p2p_isend,
                             p2p_irecv,           p2p_test,        p2p_waitall};

void check_usable(const cct_bootstrap* boot) {
  if (boot == nullptr) throw std::invalid_argument("mpi transport: no bootstrap");
  // timeout_s, added within version 1, is read only where struct_size has it.
  if (boot->abi_version != CCT_ABI_VERSION ||
      boot->struct_size < offsetof(cct_bootstrap, timeout_s))
    throw sdk::TransportError(CCT_ERR_ABI, "mpi transport: bootstrap of ABI version " +
                                               std::to_string(boot->abi_version));
  if (boot->mpi_comm == nullptr)
    throw sdk::Unsupported(
        "not an MPI communicator: the mpi transport serves ranks of an MPI "
        "program (under the interposer or cct::MpiBootstrap)");
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw sdk::Unsupported(
        "MPI is not initialised in this process (the mpi transport serves "
        "MPI programs)");
}

cct_status probe(const cct_bootstrap* boot, cct_error* err) {
  return sdk::guarded(err, [&] { check_usable(boot); });
}

// The transport's own communicator: a duplicate of the one the bootstrap
// runs on (collective over exactly its ranks). A duplicate that failed on
// some rank fails the open on every rank, naming it: agreed over the
// bootstrap, since the ranks that succeeded would otherwise go on to use
// their duplicate with ranks that have none.
MPI_Comm communicator_of(const cct_bootstrap& boot) {
  if (boot.mpi_comm == nullptr)
    throw sdk::Unsupported(
        "the ranks were not started as an MPI communicator (no mpi_comm in "
        "the bootstrap)");
  MPI_Comm comm = MPI_COMM_NULL;
  const int rc = MPI_Comm_dup(*static_cast<const MPI_Comm*>(boot.mpi_comm), &comm);
  std::string failure;
  if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int length = 0;
    MPI_Error_string(rc, text, &length);
    failure = text;
  }
  const std::string first = sdk::first_failure(
      boot.size, failure, "mpi transport: MPI_Comm_dup failed",
      [&](const void* send, void* recv, std::size_t bytes) {
        if (boot.allgather(boot.ctx, send, recv, bytes) != CCT_OK)
          throw sdk::TransportError(CCT_ERR_TRANSPORT,
                                    "mpi transport: the bootstrap allgather failed");
      });
  if (!first.empty()) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    throw sdk::TransportError(CCT_ERR_TRANSPORT, first);
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  return comm;
}

// Every rank's host, gathered over comm where any rank has a timeout, else
// none (collective; CCT_TIMEOUT may differ between processes).
std::vector<std::string> host_names(MPI_Comm comm, double timeout_s) {
  int mine_times_out = timeout_s > 0, any_times_out = 0;
  if (MPI_Allreduce(&mine_times_out, &any_times_out, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    throw sdk::TransportError(CCT_ERR_TRANSPORT, "mpi transport: MPI_Allreduce failed");
  if (!any_times_out) return {};
  char mine[MPI_MAX_PROCESSOR_NAME] = "";
  int length = 0, size = 0;
  MPI_Get_processor_name(mine, &length);
  MPI_Comm_size(comm, &size);
  std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  if (MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                    MPI_CHAR, comm) != MPI_SUCCESS)
    throw sdk::TransportError(CCT_ERR_TRANSPORT, "mpi transport: MPI_Allgather failed");
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r)
    hosts.emplace_back(&all[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
  return hosts;
}

// Every rank of comm's rank in MPI_COMM_WORLD (local: no communication).
std::vector<int> world_ranks(MPI_Comm comm) {
  MPI_Group group, world;
  int size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<size_t>(size)), translated(ranks.size());
  for (int r = 0; r < size; ++r) ranks[static_cast<size_t>(r)] = r;
  MPI_Group_translate_ranks(group, size, ranks.data(), world, translated.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return translated;
}

cct_status open(const cct_bootstrap* boot, cct_transport_instance** out, cct_error* err) {
  return sdk::guarded(err, [&] {
    check_usable(boot);
    auto instance = std::make_unique<Instance>();
    instance->comm = communicator_of(*boot);
    if (boot->struct_size >= offsetof(cct_bootstrap, timeout_s) + sizeof boot->timeout_s)
      instance->timeout_s = boot->timeout_s;
    instance->hosts = host_names(instance->comm, instance->timeout_s);
    if (!instance->hosts.empty()) instance->world_ranks = world_ranks(instance->comm);
    cct_transport_instance& c = instance->c;
    c.struct_size = sizeof c;
    c.abi_version = CCT_ABI_VERSION;
    c.rank = boot->rank;
    c.size = boot->size;
    c.capabilities = CCT_CAP_P2P;
    c.p2p = &kP2pOps;
    c.state = instance.get();
    *out = &instance.release()->c;
  });
}

// Collective (MPI_Comm_free); every request of the instance has completed.
void close(cct_transport_instance* self) {
  if (self == nullptr) return;
  Instance* instance = &of(self);
  MPI_Comm_free(&instance->comm);
  delete instance;
}

const cct_transport_desc kDesc = {
    sizeof(cct_transport_desc),
    CCT_ABI_VERSION,
    "mpi",
    "p2p over the MPI library on a communicator of its own (MPI programs; spans nodes)",
    CCT_CAP_P2P,
    {0, 0},
    probe,
    open,
    close,
};

}  // namespace
}  // namespace cct::mpi_transport

CCT_EXPORT_TRANSPORT(cct::mpi_transport::kDesc);
