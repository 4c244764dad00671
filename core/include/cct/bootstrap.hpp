// ccautotune host library: the out-of-band channel between the ranks of a
// job, used to open transports (never for data).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cct/abi/algorithm.h"
#include "cct/abi/transport.h"

namespace cct {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // A string unique to this job, usable in names of system objects.
  virtual std::string job_key() const = 0;
  // Every rank passes `bytes`; recv gets size()*bytes in rank order.
  // Throws cct::Error naming the cause (e.g. a peer that died).
  virtual void allgather(const void* send, void* recv, std::size_t bytes) = 0;
  virtual void barrier() = 0;
  // Inside an MPI program: a pointer to the MPI_Comm of these ranks (see
  // cct_bootstrap.mpi_comm); else null.
  virtual const void* mpi_comm() const { return nullptr; }
  // Inside an MPI program: the MPI library's own collectives over these
  // ranks (cct_comm.library, for the `mpi` algorithm); else null. Lives as
  // long as this object.
  virtual const cct_library* library() const { return nullptr; }
  // This rank's node and the number of nodes (cct_bootstrap.node, .nodes):
  // one node for launches on this machine; a simulated platform's boards.
  virtual int node() const { return 0; }
  virtual int nodes() const { return 1; }
  // These ranks in messages ("MPI_COMM_WORLD", "a communicator of 4
  // ranks").
  virtual std::string label() const;
  // Seconds a wait of a transport opened on these ranks may go without
  // progress before it fails (cct_bootstrap.timeout_s, from CCT_TIMEOUT);
  // 0: forever.
  virtual double timeout_s() const { return timeout_s_; }
  void set_timeout_s(double seconds) { timeout_s_ = seconds; }

  // The C view handed to transports, stamped with the ABI version the
  // transport was loaded as (a version 1 transport checks for 1); valid
  // while this object lives (the next call stamps it anew). `host`: the
  // transport under the one being opened (cct_bootstrap.host), or null.
  const cct_bootstrap* c_view(unsigned abi_version = CCT_ABI_VERSION,
                              cct_transport_instance* host = nullptr);

 private:
  cct_bootstrap view_{};
  std::string key_;
  double timeout_s_ = 0;
};

// A bootstrap of the ranks of `parent` that pass the same color, ranked in
// parent order (the simulator's LOCAL communicator: color = board; the
// ranks of one node). Its nodes are the parent's nodes its ranks are on,
// renumbered in order of their lowest rank; its job key is the parent's
// with the color appended. Every operation on it is collective over the
// whole parent: all of the parent's ranks split, and then use their parts,
// at the same points.
std::unique_ptr<Bootstrap> split_bootstrap(Bootstrap& parent, int color);

// For something each rank judges alone before the ranks go on together:
// `failure` is this rank's reason it cannot ("" where it can). Collective
// over boot's ranks: every rank learns every rank's verdict, and where any
// failed, all throw cct::Error(status) with "<what> on rank <r>: <its
// reason>" for the lowest such rank (sdk::first_failure), so that
// none goes on to wait for a rank that stopped.
void agree(Bootstrap& boot, const std::string& failure, const std::string& what, cct_status status);

}  // namespace cct
