#include "profile_diff.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "cct/error.hpp"
#include "cct/units.hpp"

namespace cct::tools {

const char* const kBeyondNoise = "beyond the noise";

namespace {

// A bucket's place in a profile: collective, transport, nodes, np range,
// the calls it serves beyond its shape (served_calls_text: element types,
// roots other than 0, or empty).
using Shape = std::tuple<int, std::string, int32_t, int32_t, int32_t, std::string>;

std::map<Shape, const RankBucket*> buckets_of(const Profile& p) {
  std::map<Shape, const RankBucket*> out;
  for (const auto& [c, transports] : p.rules)
    for (const auto& [transport, buckets] : transports)
      for (const RankBucket& b : buckets)
        out[{c, transport, b.nodes, b.np_lo, b.np_hi, served_calls_text(b)}] = &b;
  return out;
}

std::string shape_text(const Shape& s) {
  const auto& [c, transport, nodes, lo, hi, served] = s;
  return std::string(collective_name(static_cast<cct_collective>(c))) + " " + transport + " np [" +
         std::to_string(lo) + ", " + (hi == kMaxRanks ? "max" : std::to_string(hi)) + "]" +
         (nodes > 1 ? " on " + std::to_string(nodes) + " nodes" : "") +
         (served.empty() ? "" : " for " + served);
}

std::string figure(const SizeRule& r) {
  return r.median_s ? format_micros(*r.median_s) : "-";
}

const SizeRule& rule_at(const RankBucket& b, int64_t bytes) {
  for (const SizeRule& r : b.sizes)
    if (bytes >= r.lo && bytes < r.hi) return r;
  return b.sizes.back();  // the reader checked that the ranges cover 0..max
}

// Whether a change matters by the second profile's figures (the newer
// results, where the two are two tunes): its figure of the first's pick,
// one of its rule's fallbacks, against its own pick's, beyond the noise it
// measured there; where it has none, a second pick marked a tie (margin
// below its noise) is within the noise, else nothing is told.
std::string weight(cct_collective c, const SizeRule& ra, const SizeRule& rb,
                   const Registry& registry) {
  const std::string first = format_rule_choice(c, ra, registry);
  const double noise = rb.noise.value_or(0);
  std::ostringstream text;
  text << std::fixed << std::setprecision(2);
  for (const Fallback& f : rb.fallbacks)
    if (format_rule_choice(c, f, registry) == first && f.median_s && rb.median_s &&
        *rb.median_s > 0) {
      const double ratio = *f.median_s / *rb.median_s;
      text << (ratio - 1 > noise ? kBeyondNoise : "within the noise") << ": the first's pick "
           << ratio << "x the second's by the second's figures (noise " << std::setprecision(0)
           << noise * 100 << "%)";
      return text.str();
    }
  if (rb.margin && rb.noise && *rb.margin < *rb.noise)
    return "within the noise: the second's pick is a tie there";
  return "not told: the second has no figure of the first's pick";
}

// The ranges of two buckets of one shape where they choose differently,
// neighbouring ranges with the same pair of choices merged.
void diff_bucket(const Shape& shape, const RankBucket& a, const RankBucket& b,
                 const Registry& registry, std::vector<std::string>& out) {
  const auto c = static_cast<cct_collective>(std::get<0>(shape));
  const auto choice_text = [&](const SizeRule& r) { return format_rule_choice(c, r, registry); };
  std::set<int64_t> bounds{0};
  for (const SizeRule& r : a.sizes) bounds.insert(r.lo);
  for (const SizeRule& r : b.sizes) bounds.insert(r.lo);
  const std::vector<int64_t> starts(bounds.begin(), bounds.end());
  for (std::size_t i = 0; i < starts.size();) {
    const SizeRule& ra = rule_at(a, starts[i]);
    const SizeRule& rb = rule_at(b, starts[i]);
    std::size_t j = i + 1;
    while (j < starts.size() && &rule_at(a, starts[j]) == &ra && &rule_at(b, starts[j]) == &rb) ++j;
    const int64_t hi = j < starts.size() ? starts[j] : kMaxBytes;
    if (choice_text(ra) != choice_text(rb))
      out.push_back(shape_text(shape) + " [" + format_bytes(starts[i]) + ", " +
                    (hi == kMaxBytes ? "max" : format_bytes(hi)) + "): " + choice_text(ra) +
                    " -> " + choice_text(rb) + " (measured " + figure(ra) + " -> " + figure(rb) +
                    " us); " + weight(c, ra, rb, registry));
    i = j;
  }
}

}  // namespace

std::vector<std::string> diff_profiles(const Profile& a, const Profile& b,
                                       const Registry& registry) {
  const auto in_a = buckets_of(a), in_b = buckets_of(b);
  std::vector<std::string> out;
  for (const auto& [shape, bucket] : in_a) {
    const auto other = in_b.find(shape);
    if (other == in_b.end())
      out.push_back(shape_text(shape) + ": only in the first");
    else
      diff_bucket(shape, *bucket, *other->second, registry, out);
  }
  for (const auto& [shape, bucket] : in_b)
    if (!in_a.count(shape)) out.push_back(shape_text(shape) + ": only in the second");
  return out;
}

}  // namespace cct::tools
