// The MPI interposer: one side of a call's data as the bytes of its type
// signature (see datatype_layout.hpp), and what packing them cost.
//
// Where the datatype lays its elements out contiguously and in order, the
// bytes are the user's buffer itself and nothing is copied. Otherwise they
// live in scratch the interposer owns (one buffer per role, grown when a
// call needs more, reused after): packed from the user's buffer before the
// runtime's call, unpacked into it after, run by run along the datatype's
// flattened map (datatype_layout.hpp), or by MPI_Pack and MPI_Unpack for a
// type not flattened. The runtime never sees the difference, so ranks that
// describe the same data differently still make the same call.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>

#include "cct/abi/common.h"
#include "datatype_layout.hpp"

namespace cct::interposer {

// A buffer that grows and is never shrunk (uninitialised: every byte the
// runtime reads is packed first).
class Scratch {
 public:
  unsigned char* get(std::size_t bytes);

 private:
  std::unique_ptr<unsigned char[]> data_;
  std::size_t size_ = 0;
};

// The two scratch buffers of the calling thread: a call packs its send side
// into one and receives into the other.
Scratch& send_scratch();
Scratch& receive_scratch();

// What one call packed and unpacked, in bytes.
struct PackTally {
  std::size_t packed = 0, unpacked = 0;
};

// count elements of type at buf, as bytes.
class Bytes {
 public:
  // Null when the arguments are for the MPI library to judge (see
  // layout_of; MPI_IN_PLACE where the call does not allow it).
  static std::optional<Bytes> of(PackTally& tally, Scratch& scratch, const void* buf, int64_t count,
                                 MPI_Datatype type);

  std::size_t size() const { return layout_.bytes; }
  // The bytes to send.
  const void* input();
  // Where the runtime writes the bytes it receives; unpack() after.
  void* output();
  // output() holding elements [first, first + n) already (an in-place
  // call's own data: the rest is written by the runtime).
  void* in_out(int64_t first, int64_t n);
  // Puts what the runtime wrote into the user's buffer (nothing to do
  // where it wrote there itself).
  void unpack();

 private:
  Bytes(PackTally& tally, Scratch& scratch, const void* buf, int64_t count, MPI_Datatype type,
        const Layout& layout);
  unsigned char* user(int64_t element) const;
  void pack(int64_t first, int64_t n, unsigned char* to);

  PackTally* tally_;
  Scratch* scratch_;
  const void* buf_;
  int64_t count_;
  MPI_Datatype type_;
  Layout layout_;
};

// A call that packed or unpacked, counted per collective and printed by
// each rank that packed (CCT_STATS=1, at MPI_Finalize).
void count_packing(cct_collective c, const PackTally& tally);
void print_packing(std::ostream& out, int rank);

}  // namespace cct::interposer
