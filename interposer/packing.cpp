#include "packing.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>

#include "cct/error.hpp"
#include "per_thread.hpp"

namespace cct::interposer {
namespace {

struct PackCount {
  uint64_t calls = 0, packed = 0, unpacked = 0;
};

// Counted per thread (per_thread.hpp), by collective.
using PackCounts = std::array<PackCount, CCT_COLLECTIVE_COUNT>;

// MPI_Pack and MPI_Unpack count in int: a large side goes in pieces of at
// most INT_MAX bytes.
int64_t elements_per_piece(std::size_t element_bytes) {
  if (element_bytes > INT_MAX)
    throw Error("a datatype of " + std::to_string(element_bytes) +
                " bytes per element is too large for MPI_Pack");
  return std::max<int64_t>(1, INT_MAX / static_cast<int64_t>(element_bytes));
}

void expect_raw(int position, std::size_t bytes, const char* what) {
  if (static_cast<std::size_t>(position) != bytes)
    throw Error(std::string(what) + " moved " + std::to_string(position) + " bytes for " +
                std::to_string(bytes) +
                " bytes of data: this MPI library's packed format is not the data itself");
}

// Copies the runs of n elements, the first at `element` and the next
// extent bytes apart, to consecutive bytes at `packed` (To_packed) or back.
// Length is the runs' common length where the compiler should know it (a
// memcpy of a constant size is a move; a call for 8 bytes costs more than
// the copy), else 0.
template <bool To_packed, MPI_Aint Length>
void copy_elements(const TypeMap& map, unsigned char* element, MPI_Aint extent, int64_t n,
                   unsigned char* packed) {
  const Run* runs = map.runs.data();
  const std::size_t nruns = map.runs.size();
  for (int64_t k = 0; k < n; ++k, element += extent)
    for (std::size_t i = 0; i < nruns; ++i) {
      const MPI_Aint length = Length ? Length : runs[i].length;
      if constexpr (To_packed)
        std::memcpy(packed, element + runs[i].offset, length);
      else
        std::memcpy(element + runs[i].offset, packed, length);
      packed += length;
    }
}

template <bool To_packed>
void copy_elements(const TypeMap& map, unsigned char* element, MPI_Aint extent, int64_t n,
                   unsigned char* packed) {
  switch (map.run_length) {
    case 4: copy_elements<To_packed, 4>(map, element, extent, n, packed); break;
    case 8: copy_elements<To_packed, 8>(map, element, extent, n, packed); break;
    case 16: copy_elements<To_packed, 16>(map, element, extent, n, packed); break;
    default: copy_elements<To_packed, 0>(map, element, extent, n, packed); break;
  }
}

}  // namespace

unsigned char* Scratch::get(std::size_t bytes) {
  if (bytes > size_) {
    data_.reset(new unsigned char[bytes]);
    size_ = bytes;
  }
  return data_.get();
}

// Per thread: calls on different communicators may run at once.
Scratch& send_scratch() {
  static thread_local Scratch scratch;
  return scratch;
}

Scratch& receive_scratch() {
  static thread_local Scratch scratch;
  return scratch;
}

std::optional<Bytes> Bytes::of(PackTally& tally, Scratch& scratch, const void* buf, int64_t count,
                               MPI_Datatype type) {
  if (buf == MPI_IN_PLACE) return std::nullopt;  // where MPI does not allow it
  const std::optional<Layout> layout = layout_of(count, type);
  if (!layout) return std::nullopt;
  return Bytes(tally, scratch, buf, count, type, *layout);
}

Bytes::Bytes(PackTally& tally, Scratch& scratch, const void* buf, int64_t count, MPI_Datatype type,
             const Layout& layout)
    : tally_(&tally), scratch_(&scratch), buf_(buf), count_(count), type_(type), layout_(layout) {}

// Element k of the user's buffer (MPI_BOTTOM and absolute addresses
// included: plain address arithmetic).
unsigned char* Bytes::user(int64_t element) const {
  return reinterpret_cast<unsigned char*>(reinterpret_cast<uintptr_t>(buf_) +
                                          static_cast<uintptr_t>(element * layout_.extent));
}

// Elements [first, first + n) packed to `to`: run by run where the map
// is known, else by MPI_Pack.
void Bytes::pack(int64_t first, int64_t n, unsigned char* to) {
  const std::size_t element = layout_.bytes / static_cast<std::size_t>(count_);
  if (layout_.map != nullptr) {
    copy_elements<true>(*layout_.map, user(first), layout_.extent, n, to);
  } else {
    const int64_t piece = elements_per_piece(element);
    for (int64_t done = 0; done < n; done += piece) {
      const int64_t k = std::min(piece, n - done);
      int position = 0;
      PMPI_Pack(user(first + done), static_cast<int>(k), type_, to + done * element,
                static_cast<int>(k * element), &position, MPI_COMM_SELF);
      expect_raw(position, k * element, "MPI_Pack");
    }
  }
  tally_->packed += n * element;
}

const void* Bytes::input() {
  if (layout_.contiguous) return user(0) + layout_.first;
  unsigned char* bytes = scratch_->get(layout_.bytes);
  pack(0, count_, bytes);
  return bytes;
}

void* Bytes::output() {
  return layout_.contiguous ? user(0) + layout_.first : scratch_->get(layout_.bytes);
}

void* Bytes::in_out(int64_t first, int64_t n) {
  if (layout_.contiguous) return user(0) + layout_.first;
  unsigned char* bytes = scratch_->get(layout_.bytes);
  if (n > 0) pack(first, n, bytes + first * (layout_.bytes / count_));
  return bytes;
}

void Bytes::unpack() {
  if (layout_.contiguous) return;
  unsigned char* from = scratch_->get(layout_.bytes);
  if (layout_.map != nullptr) {
    copy_elements<false>(*layout_.map, user(0), layout_.extent, count_, from);
  } else {
    const std::size_t element = layout_.bytes / static_cast<std::size_t>(count_);
    const int64_t piece = elements_per_piece(element);
    for (int64_t done = 0; done < count_; done += piece) {
      const int64_t k = std::min(piece, count_ - done);
      int position = 0;
      PMPI_Unpack(from + done * element, static_cast<int>(k * element), &position, user(done),
                  static_cast<int>(k), type_, MPI_COMM_SELF);
      expect_raw(position, k * element, "MPI_Unpack");
    }
  }
  tally_->unpacked += layout_.bytes;
}

void count_packing(cct_collective c, const PackTally& tally) {
  if (tally.packed == 0 && tally.unpacked == 0) return;
  PackCount& count = PerThread<PackCounts>::mine()[c];
  ++count.calls;
  count.packed += tally.packed;
  count.unpacked += tally.unpacked;
}

void print_packing(std::ostream& out, int rank) {
  PackCounts counts;
  PerThread<PackCounts>::for_each([&](const PackCounts& thread) {
    for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) {
      counts[c].calls += thread[c].calls;
      counts[c].packed += thread[c].packed;
      counts[c].unpacked += thread[c].unpacked;
    }
  });
  if (std::none_of(counts.begin(), counts.end(), [](const PackCount& p) { return p.calls > 0; }))
    return;
  out << "cct: calls run on packed copies of non-contiguous datatypes (rank " << rank << ")\n";
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c)
    if (counts[c].calls > 0)
      out << "  " << collective_name(static_cast<cct_collective>(c)) << ": " << counts[c].calls
          << " call(s), " << counts[c].packed << " B packed, " << counts[c].unpacked
          << " B unpacked\n";
}

}  // namespace cct::interposer
