// The MPI interposer: a call's buffers in device memory, for what takes
// the call on the host.
//
// The MPI library under the interposer may not take device memory
// (Debian's Open MPI is not CUDA-aware), and the runtime's host path packs
// a datatype with gaps on the host. So where a call passes device memory
// and something on the host is to take it, each of its buffer arguments
// in device memory is mirrored: the bytes the call reaches from it, from
// the first to the last (the gaps between blocks too, so that they are
// put back as they were), are copied to host memory, the argument is
// pointed at the copy, and after the call what the call writes goes back.
// The ranks never see the difference, so a call whose ranks disagree on
// where their buffers are still gives every rank its result.
//
// A wrapper says what its call reaches on this rank (MPI's rules: which
// arguments are significant where, MPI_IN_PLACE) as Sides; the arguments
// are its own variables, which its calls to the library and to the
// runtime read after the mirror rewrote them.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>

#include "cct/abi/transport.h"

namespace cct::interposer {

// One buffer argument as the call reaches it on this rank.
struct Side {
  const void** buf = nullptr;   // the wrapper's argument; null: the call reaches nothing here
  int64_t count = 0;            // elements of `type` at *buf,
  const int* counts = nullptr;  // or, where not null, blocks of counts[i] at displs[i]
  const int* displs = nullptr;  // (in extents of `type`), i < blocks
  int blocks = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool written = false;  // the call writes into it (else it only reads it)
};

// count elements at buf; none where buf is MPI_IN_PLACE or null.
Side block(const void*& buf, int64_t count, MPI_Datatype type, bool written);
Side block(void*& buf, int64_t count, MPI_Datatype type, bool written);
// blocks of counts at displs (allgatherv, gatherv, scatterv, alltoallv).
Side blocks(const void*& buf, const int* counts, const int* displs, int n, MPI_Datatype type,
            bool written);
Side blocks(void*& buf, const int* counts, const int* displs, int n, MPI_Datatype type,
            bool written);

using Sides = std::array<Side, 2>;

// Where a side's data lies: [low, high) bytes from *buf. Empty where it
// has none, or its arguments are for the library to judge (a negative
// count, a null datatype).
struct Reach {
  MPI_Aint low = 0, high = 0;
  bool empty() const { return high <= low; }
};
Reach reach_of(const Side& side);
// Whether the bytes of its type signature lie in one run from where its
// data starts (the runtime then takes the buffer as it is: packing.hpp).
bool contiguous(const Side& side);

class Mirror {
 public:
  // Copies each side whose buffer is in device memory to host memory
  // (scratch of the calling thread) and points its argument there.
  // Throws cct::Error where a copy fails.
  Mirror(cct_transport_instance* device, const Sides& sides);
  ~Mirror();
  Mirror(const Mirror&) = delete;
  Mirror& operator=(const Mirror&) = delete;
  // After the call: what it wrote goes back to device memory, and the
  // arguments are the program's again. Throws cct::Error where a copy
  // fails (the arguments are restored all the same).
  void restore();

 private:
  struct Mirrored {
    Side side;
    const void* device;  // the argument as the program passed it
    Reach reach;
    unsigned char* host;  // the copy of [reach.low, reach.high)
  };
  cct_transport_instance* device_;
  std::array<Mirrored, 2> mirrored_{};
  int count_ = 0;
};

}  // namespace cct::interposer
