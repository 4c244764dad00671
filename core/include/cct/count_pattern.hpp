// How the blocks of a vector collective's call (gatherv, scatterv,
// allgatherv, alltoallv, reduce_scatter) are spread over the ranks, for the
// tools that make calls of one size: the tuner, ccbench and ccprofile.
//
// A pattern gives rank r of `size` ranks a block of count(r) elements, the
// blocks adding up to size * average, so that a call of any pattern has
// the size key (profiles/README.md, "Message size") of equal blocks of
// `average`: the patterns of one size compete for one rule of the profile.
//
// - equal: every block `average`.
// - skewed: what programs with uneven work pass (a sparse row that holds
//   most of the non-zeros, a rank that owns the boundary): the odd ranks
//   have nothing, rank 0 has up to 4 times the average (size - evens + 1
//   times, evens the number of even ranks, at most 4), and the other even
//   ranks share the rest alike, rank 2 taking what does not divide: on 4
//   ranks 3, 0, 1, 0 times the average, on 8 ranks 4, 0, 4/3, 0, 4/3, 0,
//   4/3, 0. Algorithms that step in lockstep wait on rank 0's block at
//   every step; those that post everything at once do not. The cap keeps
//   a skewed alltoallv within 4 times the memory of equal blocks.
//
// alltoallv's blocks are pairs: what rank i sends to every rank is
// count(i), so a skewed rank 0 sends much more than it receives, and the
// odd ranks send nothing but receive.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cct/abi/algorithm.h"

namespace cct {

enum class CountPattern { kEqual, kSkewed };

// "equal", "skewed".
const char* count_pattern_name(CountPattern pattern);
// The pattern named `name`, or none.
std::optional<CountPattern> find_count_pattern(std::string_view name);
// The names of patterns joined with '+': "equal+skewed".
std::string count_patterns_label(const std::vector<CountPattern>& patterns);
// The inverse; none for a label that names no pattern or an unknown one.
std::optional<std::vector<CountPattern>> parse_count_patterns(std::string_view label);

// Rank r's block in elements, on `size` ranks averaging `average`.
std::size_t pattern_count(CountPattern pattern, int rank, int size, std::size_t average);

// The per-rank arrays of a call in one pattern, blocks laid one after
// another in rank order.
class PatternBlocks {
 public:
  // Points the vector fields of `args` (a call of its row, args.count the
  // average block) at arrays for `rank` of `size` ranks in `pattern`,
  // valid while this object lives and fills no other call, and sets
  // args.count to the rank's own block (gatherv's send and scatterv's
  // receive count; the other vector collectives ignore it). Leaves the
  // fields of a collective without arrays as they are.
  cct_coll_args& fill(cct_coll_args& args, int size, int rank, CountPattern pattern);

 private:
  std::vector<std::size_t> send_counts_, send_displs_, recv_counts_, recv_displs_;
};

}  // namespace cct
