// The shm transport's segment layout, shared by every rank of an instance.
//
//   [header line][counters line][control lines x size][channel x size*size]
//
// A channel carries the messages of one ordered pair (src -> dst): a ring of
// slots written only by src and read only by dst, with the producer count
// (head) and the consumer count (tail) on lines of their own. One writer per
// word means no atomic read-modify-write on the data path, and keeping the
// two counters apart means the producer's stores never invalidate the line
// the consumer polls for its own progress (and vice versa).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace cct::shm {

// Lines are 128 bytes, two cache lines: x86 prefetches cache lines in
// adjacent pairs, so 64-byte padding would still share traffic.
constexpr std::size_t kLine = 128;
constexpr std::size_t kNameLen = 112;                   // a segment name, NUL included
constexpr uint64_t kMagic = 0x32'6d'68'73'2d'74'63'63;  // "cct-shm2"

constexpr std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

inline uint64_t load_acquire(const uint64_t* word) {
  return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(word)).load(std::memory_order_acquire);
}
inline void store_release(uint64_t* word, uint64_t value) {
  std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_release);
}
inline uint64_t fetch_add(uint64_t* word, uint64_t value) {
  return std::atomic_ref<uint64_t>(*word).fetch_add(value, std::memory_order_acq_rel);
}

struct alignas(kLine) Header {
  uint64_t magic;
  uint64_t size;
  uint64_t slots;
  uint64_t slot_payload;
};

// Words every rank updates (shm alloc's arrival count), apart from the
// read-mostly header.
struct alignas(kLine) Counters {
  uint64_t alloc_arrivals;    // one per rank per alloc, ever growing
  uint64_t alloc_failed_gen;  // the latest alloc generation some rank failed
};

// One per rank, written by that rank only. Rank 0's publishes the regions
// that shm alloc creates. `waiting` has a line of its own: it changes at
// every wait that sleeps, while peers poll alloc_seq.
struct alignas(kLine) ControlLine {
  uint64_t alloc_seq;     // generation of the last region published
  uint64_t alloc_failed;  // non-zero: creating that region failed
  char alloc_name[kNameLen];
  alignas(kLine) uint64_t waiting;  // a Waiting value (wait.hpp)
};

// What a rank's ControlLine::waiting says. A rank whose wait gave up says
// so for good: the instance is of no further use, and a peer timing out at
// the same moment must not take it for a rank that never came.
enum Waiting : uint64_t { kNotWaiting = 0, kWaiting = 1, kGaveUp = 2 };
static_assert(sizeof(ControlLine) == 2 * kLine);

enum SlotKind : uint32_t {
  kEagerFirst = 1,  // first fragment of a copied message: carries tag and size
  kEagerNext = 2,   // a following fragment
  kSingleCopy = 3,  // {address, size} for the receiver to read directly
};

// Slot headers get a whole line so payloads stay line aligned.
struct alignas(kLine) SlotHeader {
  uint32_t kind;
  uint32_t tag;
  uint64_t msg_bytes;  // the whole message
  uint64_t address;    // kSingleCopy: the message in the sender's memory
  // kSingleCopy messages both sides copy (shared_copy.hpp), reset by the
  // sender when it posts the slot:
  uint64_t recv_address;    // the receiver's buffer; 0 until it starts
  uint64_t pieces_claimed;  // the next piece to copy, claimed by either side
  uint64_t pieces_done;     // pieces copied (or failed), by either side
  uint64_t write_error;     // the errno of a failed write by the sender, or 0
};
static_assert(sizeof(SlotHeader) == kLine);

struct ChannelRef {
  uint64_t* head;  // slots produced, written by src
  uint64_t* tail;  // slots consumed, written by dst
  char* slots;
};

struct Layout {
  int size = 0;
  std::size_t slots = 8;
  std::size_t slot_payload = 0;
  std::size_t slot_stride = 0;
  std::size_t channel_stride = 0;
  std::size_t control_offset = 0;
  std::size_t channels_offset = 0;
  std::size_t total = 0;

  // The payload shrinks as ranks grow, so the size^2 channels stay near
  // 64 MiB; it stays between 1 KiB (enough to amortize a slot handshake) and
  // 16 KiB (more does not speed up a copy through L2 and costs footprint).
  static Layout for_ranks(int size) {
    Layout l;
    l.size = size;
    std::size_t pairs = static_cast<std::size_t>(size) * size;
    std::size_t payload = (std::size_t{64} << 20) / pairs / l.slots;
    l.slot_payload = std::clamp<std::size_t>(payload, 1024, 16384) / kLine * kLine;
    l.slot_stride = sizeof(SlotHeader) + l.slot_payload;
    l.channel_stride = 2 * kLine + l.slots * l.slot_stride;
    l.control_offset = sizeof(Header) + sizeof(Counters);
    l.channels_offset = l.control_offset + size * sizeof(ControlLine);
    l.total = l.channels_offset + pairs * l.channel_stride;
    return l;
  }
};

// Typed access to a mapped segment.
class SegmentView {
 public:
  SegmentView(char* base, const Layout& layout) : base_(base), layout_(layout) {}

  const Layout& layout() const { return layout_; }
  Header* header() const { return reinterpret_cast<Header*>(base_); }
  Counters* counters() const { return reinterpret_cast<Counters*>(base_ + sizeof(Header)); }
  ControlLine* control(int rank) const {
    return reinterpret_cast<ControlLine*>(base_ + layout_.control_offset) + rank;
  }
  ChannelRef channel(int src, int dst) const {
    char* c = base_ + layout_.channels_offset +
              (static_cast<std::size_t>(src) * layout_.size + dst) * layout_.channel_stride;
    return ChannelRef{reinterpret_cast<uint64_t*>(c), reinterpret_cast<uint64_t*>(c + kLine),
                      c + 2 * kLine};
  }
  // The slot that message fragment number `seq` of a channel uses.
  SlotHeader* slot(const ChannelRef& ch, uint64_t seq) const {
    return reinterpret_cast<SlotHeader*>(ch.slots + (seq % layout_.slots) * layout_.slot_stride);
  }
  static char* payload(SlotHeader* slot) { return reinterpret_cast<char*>(slot + 1); }

 private:
  char* base_;
  Layout layout_;
};

}  // namespace cct::shm
