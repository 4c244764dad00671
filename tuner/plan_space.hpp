// ccautotune tuner: the points to measure on one communicator.
//
// A point is (collective, transport, nodes, np, message size, algorithm,
// parameter values). For a communicator (which fixes the transport and the
// shape: nodes and np) the space
// holds every registered algorithm that passes the filters, with every
// combination of its parameter values, at every message size, except where
// cct::why_unusable refuses the call; refusals are kept with their reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "tuner/measure.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

struct SpaceFilter {
  // Names as ccinfo prints them; empty means all.
  std::vector<std::string> collectives;
  std::vector<std::string> transports;
  std::vector<std::string> algorithms;
  // Algorithm names never measured nor chosen (e.g. one that crashes).
  std::vector<std::string> excluded;
  int64_t min_bytes = 1;
  int64_t max_bytes = 4 << 20;
  // A collective's sizes stop where one call would take more than this
  // of one rank's memory, its send and receive buffers together (alltoall
  // on np ranks: 2 x np x the size), as IMB's -mem bounds its buffers: the
  // per-block collectives' largest calls grow with the ranks, in memory
  // and in time. Their smallest size is always measured.
  int64_t max_rank_bytes = int64_t{128} << 20;
  // Every 4th power of two (and the largest), default parameters only.
  bool quick = false;
  // Most parameter combinations per algorithm; see parameter_grid.
  std::size_t max_combinations = 64;
  // The count patterns the vector collectives are measured in, together
  // (Call::patterns).
  std::vector<CountPattern> vector_counts{CountPattern::kEqual, CountPattern::kSkewed};
};

// The collectives `names` selects (empty: all), in enum order. Throws
// cct::Error for a name that is none.
std::vector<cct_collective> selected_collectives(const std::vector<std::string>& names);

// True when names is empty or holds name.
bool selected(const std::vector<std::string>& names, const std::string& name);
// True when the filter excludes the algorithm `name`.
bool excluded(const SpaceFilter& filter, const std::string& name);

// The sizes measured for collective c: barrier only 0; the others the powers
// of two from max(1, min_bytes) rounded up (a reduction's from one int32,
// where max_bytes allows), to max_bytes. quick keeps every 4th of them and
// the largest.
std::vector<int64_t> message_sizes(cct_collective c, int64_t min_bytes, int64_t max_bytes,
                                   bool quick);

// The largest size measured for c on np ranks: the largest power of two
// up to max_bytes, halved while one call of it would take more than
// max_rank_bytes of a rank's buffers (footprint), down to the smallest.
int64_t largest_size(cct_collective c, int np, const SpaceFilter& filter);

// The values of one parameter: its candidate set, or its range expanded
// (lo, lo+step.. or lo, lo*step.. up to hi; a range of more than 64 values
// is sampled at an even stride), the default always included, sorted.
std::vector<int64_t> parameter_values(const cct_param_desc& p);

// Every combination of the algorithm's parameter values (table order), only
// the defaults when quick. When the product exceeds max_combinations, the
// longest value list is thinned to every other value (its first, last and
// default kept; a list that would not shorten keeps its default) until it fits, so every
// parameter keeps its extremes and its default as long as possible.
std::vector<std::vector<int64_t>> parameter_grid(const cct_algorithm_desc& alg, bool quick,
                                                 std::size_t max_combinations);

struct Point {
  const AlgorithmEntry* algorithm = nullptr;
  std::vector<int64_t> params;
  std::string transport;
  int nodes = 1;  // the communicator's shape: Communicator::nodes() ...
  int np = 0;     // ... and size()
  Call call;
  // A host algorithm timed on a device transport's buffers through host
  // copies of them (cct/host_staging.hpp), as the runtime runs one that
  // its device rules name: its plan runs on the host transport under it.
  bool staged = false;

  // The results-file row of this point with a measured result.
  ResultRow row(const PointResult& result, Stage stage = Stage::kFinal) const;
  // The same candidate (algorithm and parameter values) at another size.
  Point at(int64_t bytes) const;
  bool same_candidate(const Point& other) const {
    return algorithm == other.algorithm && params == other.params;
  }
};

// An algorithm, or some of its points, that cannot run here, and why.
struct Skip {
  std::string collective;
  std::string algorithm;
  std::string reason;
  std::size_t points = 0;  // how many points it removed
};

// A collective whose sizes stop below max_bytes (largest_size).
struct SizeLimit {
  std::string collective;
  int64_t largest = 0;
};

struct Space {
  // Ordered by collective, algorithm, parameter values, size: consecutive
  // points with the same algorithm and values share one prepared plan.
  std::vector<Point> points;
  std::vector<Skip> skipped;
  std::vector<SizeLimit> limited;
};

// Why p cannot run on comm (cct::why_unusable with the arguments the
// measurement will pass), or empty when it can.
std::string why_unusable_here(const Point& p, const Communicator& comm);

// The space on comm (its transport, nodes and size). Throws cct::Error for an
// unknown collective name in the filter. Local: no communication.
Space enumerate(const Registry& registry, const Communicator& comm, const SpaceFilter& filter);

// The space of a device transport (one granting CCT_CAP_DEVICE: cuda),
// whose buffers are in device memory and whose rules say what the runtime
// runs where every rank passes device memory: for each collective that has
// algorithms the runtime may run on device memory, those on `device`, and
// every host algorithm on `host` (the transport under it), staged. Every
// point names the device transport.
Space enumerate_device(const Registry& registry, const Communicator& host,
                       const Communicator& device, const SpaceFilter& filter);

}  // namespace cct::tuner
