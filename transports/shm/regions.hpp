// Shared regions made by shm alloc (cct_shm_ops): one POSIX segment per
// region, created by rank 0, its name published through rank 0's control
// line, mapped by every rank, unlinked once all have it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cct/abi/transport.h"
#include "layout.hpp"
#include "segment.hpp"
#include "wait.hpp"

namespace cct::shm {

class Regions {
 public:
  // name_prefix: rank 0 names region n "<name_prefix>-r<n>". waits and
  // pids (per rank) are the instance's and outlive this object.
  Regions(const SegmentView& segment, int rank, std::string name_prefix, const WaitPolicy& waits,
          const std::vector<pid_t>& pids);

  // Collective. Throws sdk::TransportError; when one rank fails, all throw
  // (a rank that never arrives: CCT_ERR_TIMEOUT after the policy's
  // timeout, naming it).
  void alloc(std::size_t bytes_per_rank, cct_shm_region* out);
  // Collective by contract, local in effect (see regions.cpp).
  void free(cct_shm_region* region);

 private:
  struct Region {
    Mapping mapping;
    std::vector<void*> peer;
  };

  // Binds this rank's part of region `gen` to its NUMA node (regions.cpp).
  void place(uint64_t gen, char* part, std::size_t bytes, std::size_t stride,
             std::size_t page) const;
  Mapping create_and_publish(uint64_t gen, std::size_t bytes, Unlinker& unlinker);
  Mapping open_published(uint64_t gen, std::size_t bytes);
  bool arrive_and_wait(uint64_t gen, bool failed);
  [[noreturn]] void time_out(const std::vector<int>& awaited) const;

  SegmentView segment_;
  int rank_;
  std::string prefix_;
  const WaitPolicy& waits_;
  const std::vector<pid_t>& pids_;
  uint64_t generation_ = 0;  // allocs so far; equal on every rank
  std::vector<std::unique_ptr<Region>> live_;
};

}  // namespace cct::shm
