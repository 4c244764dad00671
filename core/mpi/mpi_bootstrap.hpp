// A bootstrap over an MPI communicator, for runtimes inside MPI programs.
// Kept out of libcct so that non-MPI programs never load libmpi.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "cct/bootstrap.hpp"
#include "mpi_library.hpp"

namespace cct {

class MpiBootstrap final : public Bootstrap {
 public:
  // Collective over comm (which it duplicates, so the runtime's setup
  // traffic never meets the application's). MPI must be initialised.
  // Its nodes: the ranks that share memory (MPI_COMM_TYPE_SHARED), or with
  // CCT_VIRTUAL_NODES=k the k blocks of consecutive MPI_COMM_WORLD ranks
  // (to exercise the path between nodes on one machine), numbered in order
  // of their lowest rank in comm. Throws cct::Error for a malformed
  // CCT_VIRTUAL_NODES.
  explicit MpiBootstrap(MPI_Comm comm);
  ~MpiBootstrap() override;
  MpiBootstrap(const MpiBootstrap&) = delete;
  MpiBootstrap& operator=(const MpiBootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string job_key() const override { return key_; }
  void allgather(const void* send, void* recv, std::size_t bytes) override;
  void barrier() override;
  const void* mpi_comm() const override { return &comm_; }
  // The MPI library's collectives on this bootstrap's duplicate of comm.
  const cct_library* library() const override { return library_->raw(); }
  int node() const override { return node_; }
  int nodes() const override { return nodes_; }
  std::string label() const override { return label_; }

 private:
  void find_nodes(int virtual_nodes);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 0;
  int node_ = 0, nodes_ = 1;
  std::string key_;
  std::string label_;
  std::unique_ptr<MpiLibrary> library_;
};

// CCT_VIRTUAL_NODES: 0 when unset or empty, else k >= 1. Throws cct::Error
// naming the variable for anything but a positive integer.
int virtual_nodes_from_environment();

}  // namespace cct
