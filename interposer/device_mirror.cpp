#include "device_mirror.hpp"

#include <algorithm>
#include <optional>

#include "cct/device_memory.hpp"
#include "datatype_layout.hpp"
#include "memory_kinds.hpp"
#include "packing.hpp"

namespace cct::interposer {
namespace {

bool absent(const void* buf) {
  return buf == nullptr || buf == MPI_IN_PLACE;
}

// One scratch per side, per thread, apart from packing's (the host path
// may pack a mirrored side).
Scratch& mirror_scratch(int side) {
  static thread_local Scratch scratch[2];
  return scratch[side];
}

}  // namespace

Side block(const void*& buf, int64_t count, MPI_Datatype type, bool written) {
  if (absent(buf)) return {};
  return {.buf = &buf, .count = count, .type = type, .written = written};
}

Side block(void*& buf, int64_t count, MPI_Datatype type, bool written) {
  // void* and const void* are similar types: one may be read as the other.
  return block(const_cast<const void*&>(buf), count, type, written);
}

Side blocks(const void*& buf, const int* counts, const int* displs, int n, MPI_Datatype type,
            bool written) {
  if (absent(buf) || counts == nullptr || displs == nullptr) return {};
  return {.buf = &buf,
          .counts = counts,
          .displs = displs,
          .blocks = n,
          .type = type,
          .written = written};
}

Side blocks(void*& buf, const int* counts, const int* displs, int n, MPI_Datatype type,
            bool written) {
  return blocks(const_cast<const void*&>(buf), counts, displs, n, type, written);
}

Reach reach_of(const Side& side) {
  if (side.buf == nullptr) return {};
  if (side.counts == nullptr) {
    const std::optional<Layout> layout = layout_of(side.count, side.type);
    if (!layout || layout->bytes == 0) return {};
    return {layout->low, layout->high};
  }
  // The run the runtime's path reads them in (calls.cpp: span_of).
  const BlockRun run = run_of(side.counts, side.displs, side.blocks);
  const std::optional<Layout> layout = layout_of(run.end - run.first, side.type);
  if (!layout || layout->bytes == 0) return {};
  const MPI_Aint at = run.first * layout->extent;
  return {at + layout->low, at + layout->high};
}

// A block side's elements, or the run of a blocks side (run_of),
// contiguous.
bool contiguous(const Side& side) {
  int64_t elements = side.count;
  if (side.counts != nullptr) {
    const BlockRun run = run_of(side.counts, side.displs, side.blocks);
    elements = run.end - run.first;
  }
  const std::optional<Layout> layout = layout_of(elements, side.type);
  return layout && layout->contiguous;
}

Mirror::Mirror(cct_transport_instance* device, const Sides& sides) : device_(device) {
  for (const Side& side : sides) {
    if (side.buf == nullptr || memory_kind(device, *side.buf) != CCT_MEMORY_DEVICE) continue;
    const Reach reach = reach_of(side);
    if (reach.empty()) continue;
    const std::size_t bytes = static_cast<std::size_t>(reach.high - reach.low);
    unsigned char* host = mirror_scratch(count_).get(bytes);
    const auto* first = static_cast<const unsigned char*>(*side.buf) + reach.low;
    copy_and_wait(device, host, first, bytes, CCT_COPY_DEVICE_TO_HOST,
                  "mirroring device memory in host memory");
    mirrored_[count_++] = {side, *side.buf, reach, host};
    *side.buf = host - reach.low;
  }
}

Mirror::~Mirror() {
  for (int i = 0; i < count_; ++i) *mirrored_[i].side.buf = mirrored_[i].device;
}

void Mirror::restore() {
  const int mirrored = count_;
  count_ = 0;  // the arguments are the program's again, whatever fails below
  for (int i = 0; i < mirrored; ++i) *mirrored_[i].side.buf = mirrored_[i].device;
  for (int i = 0; i < mirrored; ++i) {
    const Mirrored& m = mirrored_[i];
    if (!m.side.written) continue;
    auto* first =
        const_cast<unsigned char*>(static_cast<const unsigned char*>(m.device)) + m.reach.low;
    copy_and_wait(device_, first, m.host, static_cast<std::size_t>(m.reach.high - m.reach.low),
                  CCT_COPY_HOST_TO_DEVICE, "mirroring device memory in host memory");
  }
}

}  // namespace cct::interposer
