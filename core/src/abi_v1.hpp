// The adapter that loads and runs plugins built for plugin ABI version 1
// (headers frozen in cct/abi/v1/). Version 2 only appended to version 1's
// structs, so the host reads a version 1 library's tables through the
// version 2 types, except the algorithm descriptors, whose functions take
// version 1's cct_comm and cct_coll_args: an Algorithm holds a version 2
// copy of a descriptor's metadata for the host, and calls its functions
// with version 1 structs. It never hands a version 1 algorithm a call that
// version 1 cannot express (device memory, per-rank counts).
#pragma once

#include <cstddef>

#include "cct/abi/algorithm.h"
#include "cct/abi/transport.h"

namespace cct::abi_v1 {

namespace v1 {
struct cct_algorithm_desc;  // version 1's, defined in abi_v1.cpp alone
}

// sizeof version 1's cct_algorithm_set and cct_algorithm_desc, which the
// registry checks a version 1 library's headers against.
extern const std::size_t kAlgorithmSetSize;
extern const std::size_t kAlgorithmDescSize;
// Version 1 had the first eight collectives: a version 1 entry naming a
// later value is not one of them.
extern const int kCollectiveCount;

// Gives a version 1 transport the bootstrap it checks for: the same layout,
// stamped with version 1 and version 1's struct_size.
void stamp(cct_bootstrap* boot);

class Algorithm {
 public:
  // `v1_desc` is a version 1 cct_algorithm_desc whose header the registry
  // checked; it lives as long as its library.
  explicit Algorithm(const void* v1_desc);

  // Its name, doc, collective, capabilities, limits, ranks and parameters
  // as a version 2 descriptor. Its function pointers are null: call the
  // members below.
  const cct_algorithm_desc& metadata() const { return metadata_; }
  bool has_functions() const;

  // As cct_algorithm_desc's functions. A plan from prepare() is the
  // adapter's: pass it only to run() and destroy() of this Algorithm.
  cct_status can_use(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                     cct_error* why) const;
  cct_status prepare(const cct_comm* comm, const int64_t* params, void** plan,
                     cct_error* err) const;
  cct_status run(void* plan, const cct_coll_args* args, cct_error* err) const;
  void destroy(void* plan) const;

 private:
  const v1::cct_algorithm_desc* plugin_;
  cct_algorithm_desc metadata_;
};

}  // namespace cct::abi_v1
