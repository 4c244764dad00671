// The blocks of an allgather's result, one per rank, as one stream in rank
// order: what a two-level leader streams to its group through a channel.
// Where each block lies is the rank's own (allgatherv's displacements may
// differ between ranks), so the writer and each reader map the same stream
// onto their own buffers. Blocks that lie back to back form one run, copied
// with one memcpy per chunk: allgather's result is a single run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "cct/abi/algorithm.h"

namespace cct::plugins::hierarchical {

// Where rank r's block lies in one rank's result buffer, in bytes.
struct BlockLayout {
  const std::size_t* counts;  // allgatherv's recvcounts, or null: `count` each
  const std::size_t* displs;  // allgatherv's rdispls, or null: rank order
  std::size_t count;
  std::size_t elem;

  std::size_t bytes(int r) const { return (counts != nullptr ? counts[r] : count) * elem; }
  std::size_t offset(int r) const { return (displs != nullptr ? displs[r] : r * count) * elem; }
};

class BlocksStream {
 public:
  explicit BlocksStream(int size) { runs_.reserve(static_cast<std::size_t>(size)); }

  // The runs of `layout` over `size` ranks; never allocates past the
  // reservation.
  void assign(const BlockLayout& layout, int size) {
    runs_.clear();
    total_ = 0;
    for (int r = 0; r < size; ++r) {
      const std::size_t bytes = layout.bytes(r), at = layout.offset(r);
      if (bytes == 0) continue;
      if (!runs_.empty() && runs_.back().at + runs_.back().bytes == at)
        runs_.back().bytes += bytes;
      else
        runs_.push_back({total_, at, bytes});
      total_ += bytes;
    }
  }

  std::size_t total_bytes() const { return total_; }

  // Stream bytes [from, from + len), from their places in buf, into dst.
  void pack(std::byte* dst, const std::byte* buf, std::size_t from, std::size_t len) const {
    each(from, len, [&](std::size_t done, std::size_t at, std::size_t n) {
      std::memcpy(dst + done, buf + at, n);
    });
  }
  // Stream bytes [from, from + len), from src, into their places in buf.
  void unpack(std::byte* buf, const std::byte* src, std::size_t from, std::size_t len) const {
    each(from, len, [&](std::size_t done, std::size_t at, std::size_t n) {
      std::memcpy(buf + at, src + done, n);
    });
  }

 private:
  struct Run {
    std::size_t start;  // in the stream
    std::size_t at;     // in the buffer
    std::size_t bytes;
  };

  // f(bytes of the range done so far, buffer offset, bytes) per run the
  // range touches.
  template <class F>
  void each(std::size_t from, std::size_t len, F f) const {
    auto run = std::upper_bound(runs_.begin(), runs_.end(), from,
                                [](std::size_t x, const Run& r) { return x < r.start; }) -
               1;
    for (std::size_t done = 0; done < len; ++run) {
      const std::size_t skip = from + done - run->start;
      const std::size_t n = std::min(len - done, run->bytes - skip);
      f(done, run->at + skip, n);
      done += n;
    }
  }

  std::vector<Run> runs_;
  std::size_t total_ = 0;
};

}  // namespace cct::plugins::hierarchical
