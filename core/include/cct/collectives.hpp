// ccautotune host library: the table of collectives. One row per
// collective states everything the rest of the code asks about it (names,
// root, reduction, the profile's size key, buffer extents, the in-place
// form, the built-in default, the reference result), so that dispatch, the
// C API, profiles, the tuner, ccbench, the interposer and the tests read a
// row instead of switching on the collective. Adding a collective adds a
// row (core/src/collectives.cpp); README.md "Adding a collective" lists the
// rest.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "cct/abi/algorithm.h"

namespace cct {

// Elements one rank reads from sendbuf and writes to recvbuf in a call.
struct Extent {
  std::size_t send = 0;
  std::size_t recv = 0;
};

// A run of elements inside a buffer.
struct Region {
  std::size_t offset = 0;
  std::size_t count = 0;
};

// One part of a rank's expected result: recvbuf elements [out, out + count)
// hold the reduction (with the call's op, in rank order) over ranks
// [from, to) of their input elements [in, in + count); one rank: a copy.
// A rank's input is its sendbuf, as cct_coll_args defines it (the tests
// fill inputs, compute these and compare).
struct Piece {
  std::size_t out = 0;
  std::size_t count = 0;
  int from = 0;
  int to = 0;
  std::size_t in = 0;
};

// Which buffer the in-place form marks CCT_IN_PLACE, and on which ranks.
enum class InPlaceMark {
  kNone,    // no in-place form (barrier)
  kAlways,  // no other form: the root's input is in recvbuf (bcast)
  kSend,    // sendbuf: the input is already in recvbuf (in_place_input says where)
  kRecv,    // recvbuf: the rank's own result stays where it is in sendbuf
};

// The per-rank arrays of cct_coll_args, as a bit set.
enum CountArray : unsigned {
  kRecvCounts = 1u << 0,
  kRecvDispls = 1u << 1,
  kSendCounts = 1u << 2,
  kSendDispls = 1u << 3,
};

struct CollectiveInfo {
  cct_collective id;
  const char* name;      // in profiles, logs, ccinfo, CCT_FORCE
  const char* mpi_name;  // the MPI call it stands for
  bool rooted;           // has a root (cct_coll_args.root matters)
  bool reduction;        // combines with cct_coll_args.op
  // The per-rank arrays of cct_coll_args it reads (kRecvCounts | ...),
  // none of them NULL; 0 for the collectives of one count. Only the root
  // passes them where arrays_at_root (gatherv, scatterv).
  unsigned arrays;
  bool arrays_at_root;
  // The algorithm a call runs where no rule applies: it runs on any
  // communicator, count, root, datatype and op, so a call always has one.
  const char* default_algorithm;
  // The message size the profile's rules are keyed by, in words
  // (profiles/README.md states the same), and computed from what every
  // rank passes equally, so that every rank selects alike. Zero-sized
  // collectives (barrier) have no sizes to tune.
  const char* size_key;
  bool sized;
  std::size_t (*message_bytes)(const cct_coll_args& args, int size);
  // Where no rank knows the size key alone (gatherv, scatterv, alltoallv):
  // message_bytes is this rank's share of the key's total, the ranks sum
  // their shares and the key is that sum / key_parts(size). Null where
  // message_bytes is the key itself.
  std::size_t (*key_parts)(int size);
  // The elements rank `rank` of `size` reads and writes (out of place).
  Extent (*extent)(const cct_coll_args& args, int rank, int size);
  InPlaceMark in_place;
  bool in_place_root_only;  // only the root may pass the in-place form
  // kSend, kAlways: where in recvbuf the rank's input lies.
  Region (*in_place_input)(const cct_coll_args& args, int rank, int size);
  // Rank `rank`'s expected result, given every rank's arguments (calls[r]
  // is rank r's).
  std::vector<Piece> (*expected)(std::span<const cct_coll_args> calls, int rank);

  // A vector collective: its blocks have per-rank counts.
  bool vector() const { return arrays != 0; }
};

// The row of c; throws cct::Error for a value that has none.
const CollectiveInfo& collective_info(cct_collective c);
// Every row, in cct_collective order.
std::span<const CollectiveInfo> collectives();
// The row named `name`, or null.
const CollectiveInfo* find_collective(std::string_view name);

// The integer a C caller stored in an enum field, read without loading
// the enum: a value outside the enum's range (99 for a collective) is
// legal in C, but loading it as the C++ enum is undefined.
template <class Enum>
int raw_enum(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int));
  int value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

// A call's message size as its row defines it (the profile's size key).
std::size_t message_bytes(const cct_coll_args& args, int size);

// The arguments of one call of this build's ABI version: the vector
// fields NULL, host memory.
cct_coll_args make_call(cct_collective c, const void* send, void* recv, std::size_t count,
                        cct_datatype dtype, cct_op op, int root, uint32_t tag = 0);

// A call's arguments as this build's struct, from a caller of any version:
// a smaller struct_size (an older build) leaves the fields it lacks zero,
// which is NULL counts and host memory; a larger one (a newer build) is
// read as far as this build knows. Throws cct::Error for NULL, a
// struct_size below version 1's, or a collective, datatype or operator
// outside this build's enums.
cct_coll_args as_this_build(const cct_coll_args* args);

// Whether a call passes the in-place form (either buffer CCT_IN_PLACE).
// Inline: every call's path asks it.
inline bool is_in_place(const cct_coll_args& args) {
  return args.sendbuf == CCT_IN_PLACE || args.recvbuf == CCT_IN_PLACE;
}

}  // namespace cct
