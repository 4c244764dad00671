#include "tuner/plan_space.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <map>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "tuner/measure.hpp"

namespace cct::tuner {
namespace {

constexpr int64_t kMaxRangeValues = 64;
constexpr int kQuickStride = 4;

// The largest power of two up to bytes (bytes >= 1).
int64_t power_floor(int64_t bytes) {
  return static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(bytes)));
}

// The smallest size measured: min_bytes (at least 1) up to a power of two.
int64_t smallest_size(int64_t min_bytes) {
  return static_cast<int64_t>(
      std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(1, min_bytes))));
}

// The first size measured for c: smallest_size, but for a reduction at
// least one element of the reference type (where the largest size allows
// it). Below that a reduction is measured in uint8 (measure.hpp), whose
// sums the MPI library's call is no candidate for (8-bit sums saturate
// there): the sizes of a few bytes got our algorithms unweighed against
// the library, a range of their own in each of the 6 reductions.
int64_t first_size(cct_collective c, int64_t min_bytes, int64_t max_bytes) {
  const int64_t first = smallest_size(min_bytes);
  const auto element = static_cast<int64_t>(sdk::dtype_size(kReferenceType));
  if (!collective_info(c).reduction || element > max_bytes) return first;
  return std::max(first, element);
}

std::vector<int64_t> sorted_with(std::vector<int64_t> values, int64_t also) {
  values.push_back(also);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

std::vector<int64_t> expand_add(const cct_param_desc& p) {
  std::vector<int64_t> values;
  if (p.step <= 0 || p.hi < p.lo) return values;
  const int64_t count = (p.hi - p.lo) / p.step + 1;
  const int64_t stride = (count + kMaxRangeValues - 1) / kMaxRangeValues;
  for (int64_t k = 0; k < count; k += stride) values.push_back(p.lo + k * p.step);
  return values;
}

std::vector<int64_t> expand_mul(const cct_param_desc& p) {
  std::vector<int64_t> values;
  if (p.step < 2 || p.lo <= 0) return values;
  for (int64_t v = p.lo; v <= p.hi; v *= p.step) {
    values.push_back(v);
    if (v > std::numeric_limits<int64_t>::max() / p.step) break;
  }
  return values;
}

// Every other value, keeping the last and the default; only the default
// when that would not shorten the list (two values, or three with the
// default in the middle), so thinning always makes progress.
std::vector<int64_t> thin(const std::vector<int64_t>& values, int64_t default_value) {
  std::vector<int64_t> kept;
  for (std::size_t i = 0; i < values.size(); i += 2) kept.push_back(values[i]);
  kept.push_back(values.back());
  kept = sorted_with(std::move(kept), default_value);
  if (kept.size() < values.size()) return kept;
  return {default_value};
}

std::size_t product(const std::vector<std::vector<int64_t>>& lists) {
  std::size_t n = 1;
  for (const auto& l : lists) n *= l.size();
  return n;
}

// The cartesian product of lists, the last list varying fastest.
std::vector<std::vector<int64_t>> combinations(const std::vector<std::vector<int64_t>>& lists) {
  std::vector<std::vector<int64_t>> out{{}};
  for (const auto& list : lists) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : out)
      for (int64_t v : list) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    out = std::move(next);
  }
  return out;
}

// Adds the usable points of one algorithm on comm at `sizes`, named
// `transport` (staged: on a device transport's buffers); refusals are
// counted per reason.
void add_algorithm(const AlgorithmEntry& alg, const Communicator& comm,
                   const std::string& transport, bool staged, const SpaceFilter& filter,
                   const std::vector<int64_t>& sizes, Space& space) {
  const cct_algorithm_desc& d = *alg.desc;
  // Outside an MPI program there is no library to measure: not offered,
  // not a skip to report.
  if ((d.required_caps & ~comm.capabilities()) == CCT_CAP_LIBRARY) return;
  std::map<std::string, std::size_t> refused;
  for (const auto& params : parameter_grid(d, filter.quick, filter.max_combinations))
    for (int64_t bytes : sizes) {
      Point p{.algorithm = &alg,
              .params = params,
              .transport = transport,
              .nodes = comm.nodes(),
              .np = comm.size(),
              .call = Call{d.collective, bytes, filter.vector_counts},
              .staged = staged};
      if (std::string why = why_unusable_here(p, comm); !why.empty())
        ++refused[why];
      else
        space.points.push_back(std::move(p));
    }
  for (const auto& [why, n] : refused)
    space.skipped.push_back(Skip{collective_name(d.collective), d.name, why, n});
}

}  // namespace

std::vector<cct_collective> selected_collectives(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    cct_collective c;
    if (!parse_collective(name, &c)) throw Error("unknown collective '" + name + "'");
  }
  std::vector<cct_collective> out;
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c)
    if (selected(names, collective_name(static_cast<cct_collective>(c))))
      out.push_back(static_cast<cct_collective>(c));
  return out;
}

bool excluded(const SpaceFilter& filter, const std::string& name) {
  return std::find(filter.excluded.begin(), filter.excluded.end(), name) != filter.excluded.end();
}

bool selected(const std::vector<std::string>& names, const std::string& name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<int64_t> message_sizes(cct_collective c, int64_t min_bytes, int64_t max_bytes,
                                   bool quick) {
  if (!collective_info(c).sized) return {0};
  std::vector<int64_t> sizes;
  const int64_t first = first_size(c, min_bytes, max_bytes);
  int n = 0;
  for (uint64_t s = first; s <= static_cast<uint64_t>(max_bytes); s *= 2, ++n)
    if (!quick || n % kQuickStride == 0) sizes.push_back(static_cast<int64_t>(s));
  const int64_t largest = power_floor(max_bytes);
  if (quick && largest >= first && sizes.back() != largest) sizes.push_back(largest);
  return sizes;
}

int64_t largest_size(cct_collective c, int np, const SpaceFilter& filter) {
  const int64_t smallest = smallest_size(filter.min_bytes);
  const auto rank_bytes = [&](int64_t bytes) {
    const Footprint f = footprint(Call{c, bytes, filter.vector_counts}, np);
    return static_cast<int64_t>(f.send + f.recv);
  };
  int64_t largest = power_floor(filter.max_bytes);
  while (largest / 2 >= smallest && rank_bytes(largest) > filter.max_rank_bytes) largest /= 2;
  return largest;
}

std::vector<int64_t> parameter_values(const cct_param_desc& p) {
  if (p.ncandidates > 0)
    return sorted_with(std::vector<int64_t>(p.candidates, p.candidates + p.ncandidates),
                       p.default_value);
  return sorted_with(p.step_kind == CCT_STEP_MUL ? expand_mul(p) : expand_add(p), p.default_value);
}

std::vector<std::vector<int64_t>> parameter_grid(const cct_algorithm_desc& alg, bool quick,
                                                 std::size_t max_combinations) {
  std::vector<std::vector<int64_t>> lists;
  for (uint32_t i = 0; i < alg.nparams; ++i)
    lists.push_back(quick ? std::vector<int64_t>{alg.params[i].default_value}
                          : parameter_values(alg.params[i]));
  while (product(lists) > std::max<std::size_t>(1, max_combinations)) {
    auto longest = std::max_element(lists.begin(), lists.end(), [](const auto& a, const auto& b) {
      return a.size() < b.size();
    });
    *longest = thin(*longest, alg.params[longest - lists.begin()].default_value);
  }
  return combinations(lists);
}

ResultRow Point::row(const PointResult& result, Stage stage) const {
  return ResultRow{.collective = collective_name(call.collective),
                   .transport = transport,
                   .nodes = nodes,
                   .np = np,
                   .bytes = call.bytes,
                   .algorithm = algorithm->desc->name,
                   .params = format_params(*algorithm->desc, params),
                   .result = result,
                   .stage = stage,
                   .counts = counts_label(call),
                   .datatype = datatype_label(call),
                   .root = call.root};
}

Point Point::at(int64_t bytes) const {
  Point p = *this;
  p.call.bytes = bytes;
  return p;
}

std::string why_unusable_here(const Point& p, const Communicator& comm) {
  const MeasuredCalls calls(p.call, comm.size(), comm.rank(), 0);
  for (const cct_coll_args& args : calls.args())
    if (std::string why = why_unusable(*p.algorithm, comm, args, p.params); !why.empty())
      return why;
  return "";
}

namespace {

bool wanted(const SpaceFilter& filter, const AlgorithmEntry& alg, cct_collective c) {
  return alg.desc->collective == c && selected(filter.algorithms, alg.desc->name) &&
         !excluded(filter, alg.desc->name);
}

// The sizes measured for c on np ranks; c goes into space.limited where
// max_rank_bytes stops them short of max_bytes.
std::vector<int64_t> sizes_of(cct_collective c, int np, const SpaceFilter& filter, Space& space) {
  const int64_t largest = largest_size(c, np, filter);
  if (largest < power_floor(filter.max_bytes))
    space.limited.push_back({collective_name(c), largest});
  return message_sizes(c, filter.min_bytes, largest, filter.quick);
}

}  // namespace

Space enumerate(const Registry& registry, const Communicator& comm, const SpaceFilter& filter) {
  Space space;
  const std::string transport = comm.transport().entry().desc->name;
  if (!selected(filter.transports, transport)) return space;
  for (cct_collective c : selected_collectives(filter.collectives)) {
    const std::vector<int64_t> sizes = sizes_of(c, comm.size(), filter, space);
    for (const AlgorithmEntry& alg : registry.algorithms())
      if (wanted(filter, alg, c)) add_algorithm(alg, comm, transport, false, filter, sizes, space);
  }
  return space;
}

Space enumerate_device(const Registry& registry, const Communicator& host,
                       const Communicator& device, const SpaceFilter& filter) {
  Space space;
  const std::string transport = device.transport().entry().desc->name;
  if (!selected(filter.transports, transport)) return space;
  for (cct_collective c : selected_collectives(filter.collectives)) {
    const std::vector<int64_t> sizes = sizes_of(c, device.size(), filter, space);
    Space on_device;
    for (const AlgorithmEntry& alg : registry.algorithms())
      if (wanted(filter, alg, c) && alg.runs_on_device_memory())
        add_algorithm(alg, device, transport, false, filter, sizes, on_device);
    space.skipped.insert(space.skipped.end(), on_device.skipped.begin(), on_device.skipped.end());
    if (on_device.points.empty()) continue;  // the runtime never asks the device rules
    space.points.insert(space.points.end(), on_device.points.begin(), on_device.points.end());
    for (const AlgorithmEntry& alg : registry.algorithms())
      if (wanted(filter, alg, c) && !(alg.desc->required_caps & CCT_CAP_DEVICE))
        add_algorithm(alg, host, transport, true, filter, sizes, space);
  }
  return space;
}

}  // namespace cct::tuner
