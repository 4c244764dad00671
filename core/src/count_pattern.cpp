#include "cct/count_pattern.hpp"

#include <algorithm>
#include <array>

#include "cct/collectives.hpp"

namespace cct {
namespace {

struct PatternName {
  CountPattern pattern;
  const char* name;
};
constexpr std::array<PatternName, 2> kNames{{
    {CountPattern::kEqual, "equal"},
    {CountPattern::kSkewed, "skewed"},
}};

// The displacements of counts laid one after another, into displs (its
// storage reused: ccbench fills a call inside its timed loop).
void lay_out(const std::vector<std::size_t>& counts, std::vector<std::size_t>& displs) {
  displs.resize(counts.size());
  std::size_t at = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = at;
    at += counts[r];
  }
}

// The skewed pattern's heaviest block, in averages.
constexpr std::size_t kMostTimesAverage = 4;

}  // namespace

const char* count_pattern_name(CountPattern pattern) {
  for (const PatternName& p : kNames)
    if (p.pattern == pattern) return p.name;
  return "?";
}

std::optional<CountPattern> find_count_pattern(std::string_view name) {
  for (const PatternName& p : kNames)
    if (name == p.name) return p.pattern;
  return std::nullopt;
}

std::string count_patterns_label(const std::vector<CountPattern>& patterns) {
  std::string label;
  for (CountPattern p : patterns)
    label += (label.empty() ? "" : "+") + std::string(count_pattern_name(p));
  return label;
}

std::optional<std::vector<CountPattern>> parse_count_patterns(std::string_view label) {
  std::vector<CountPattern> patterns;
  for (std::size_t start = 0; start <= label.size();) {
    const std::size_t end = std::min(label.find('+', start), label.size());
    const std::optional<CountPattern> p = find_count_pattern(label.substr(start, end - start));
    if (!p) return std::nullopt;
    patterns.push_back(*p);
    start = end + 1;
  }
  return patterns;
}

std::size_t pattern_count(CountPattern pattern, int rank, int size, std::size_t average) {
  if (pattern == CountPattern::kEqual || size == 1) return average;
  if (rank % 2 == 1) return 0;
  const std::size_t n = static_cast<std::size_t>(size);
  const std::size_t evens = (n + 1) / 2;
  const std::size_t heavy = std::min<std::size_t>(n - evens + 1, kMostTimesAverage) * average;
  if (rank == 0) return heavy;
  const std::size_t rest = n * average - heavy;
  return rest / (evens - 1) + (rank == 2 ? rest % (evens - 1) : 0);
}

cct_coll_args& PatternBlocks::fill(cct_coll_args& args, int size, int rank, CountPattern pattern) {
  const CollectiveInfo& row = collective_info(args.collective);
  if (!row.vector()) return args;
  const std::size_t average = args.count;
  recv_counts_.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) recv_counts_[r] = pattern_count(pattern, r, size, average);
  args.count = recv_counts_[rank];
  // alltoallv, the one collective with counts both ways, pairs them: rank
  // i sends count(i) to every rank, which each receives as block i.
  if ((row.arrays & kSendCounts) && (row.arrays & kRecvCounts))
    send_counts_.assign(recv_counts_.size(), args.count);
  else
    send_counts_ = recv_counts_;  // copies into the storage it has
  lay_out(recv_counts_, recv_displs_);
  lay_out(send_counts_, send_displs_);
  if (row.arrays & kRecvCounts) args.recvcounts = recv_counts_.data();
  if (row.arrays & kRecvDispls) args.rdispls = recv_displs_.data();
  if (row.arrays & kSendCounts) args.sendcounts = send_counts_.data();
  if (row.arrays & kSendDispls) args.sdispls = send_displs_.data();
  return args;
}

}  // namespace cct
