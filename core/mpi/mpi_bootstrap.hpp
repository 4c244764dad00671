// A bootstrap over an MPI communicator, for runtimes inside MPI programs.
// Kept out of libcct so that non-MPI programs never load libmpi.
#pragma once

#include <mpi.h>

#include <string>

#include "cct/bootstrap.hpp"

namespace cct {

class MpiBootstrap final : public Bootstrap {
 public:
  // Collective over comm (which it duplicates, so the runtime's setup
  // traffic never meets the application's). MPI must be initialised.
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

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 0;
  std::string key_;
};

}  // namespace cct
