// The compiled lookup: for one transport and one communicator shape, a short
// list of ranges per collective, resolved against the registry up front so
// that select() only compares integers.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "profile_check.hpp"

namespace cct {
namespace {

// The buckets of (c, transport), or nullptr.
const std::vector<RankBucket>* buckets_of(const Profile& profile, cct_collective c,
                                          std::string_view transport) {
  auto by_collective = profile.rules.find(c);
  if (by_collective == profile.rules.end()) return nullptr;
  auto by_transport = by_collective->second.find(std::string(transport));
  if (by_transport == by_collective->second.end()) return nullptr;
  return &by_transport->second;
}

// The profile's buckets for (c, transport, nodes, np): the one of every
// call (at most one: the reader refuses overlaps), the typed ones and the
// one of roots other than 0.
std::vector<const RankBucket*> buckets_for(const Profile& profile, cct_collective c,
                                           std::string_view transport, int nodes, int np) {
  std::vector<const RankBucket*> out;
  if (const std::vector<RankBucket>* buckets = buckets_of(profile, c, transport))
    for (const RankBucket& b : *buckets)
      if (b.nodes == nodes && np >= b.np_lo && np <= b.np_hi) out.push_back(&b);
  return out;
}

// "16 ranks" on one node, "8 nodes x 2 ranks" across nodes.
std::string shape_words(int np, int nodes) {
  const int per_node = np / nodes;
  return nodes == 1 ? std::to_string(np) + " ranks"
                    : std::to_string(nodes) + " nodes x " + std::to_string(per_node) +
                          (per_node == 1 ? " rank" : " ranks");
}

// What a predicted bucket was predicted for (np ranks on `nodes` nodes)
// and from: the buckets of every collective predicted alike get one note.
struct PredictedShape {
  int32_t np, nodes, from_np, from_nodes;
  auto operator<=>(const PredictedShape&) const = default;
};

// What the runtime says once of the rules the cost model predicted for a
// shape, used by a communicator of np ranks; `errors` the model's checked
// errors of its collectives (none where only one size was measured).
std::string prediction_note(const PredictedShape& p, const std::set<long>& errors, int np,
                            std::string_view transport) {
  std::ostringstream note;
  note << "profile rules predicted by the cost model for " << shape_words(p.np, p.nodes)
       << " from those measured at " << shape_words(p.from_np, p.from_nodes) << " used for " << np
       << " ranks on " << transport << " (";
  if (errors.empty())
    note << "its error unchecked: one " << (p.nodes == 1 ? "communicator size" : "node count")
         << " measured";
  else if (errors.size() == 1)
    note << "its median time error where it could be checked: " << *errors.begin() << "%";
  else
    note << "its median time error where it could be checked: " << *errors.begin() << "-"
         << *errors.rbegin() << "% by collective";
  if (p.nodes == 1)
    note << "): tune with --np " << np << " for rules measured there";
  else
    note << "): tune on " << p.nodes << " nodes (--nodes " << p.nodes
         << ") for rules measured there";
  return note.str();
}

std::size_t to_size(int64_t bytes) {
  return bytes == kMaxBytes ? SIZE_MAX : static_cast<std::size_t>(bytes);
}

}  // namespace

int closest_tuned_nodes(const Profile& profile, std::string_view transport, int nodes) {
  std::optional<int> below, above;
  for (int i = 0; i < CCT_COLLECTIVE_COUNT; ++i)
    if (const auto* buckets = buckets_of(profile, static_cast<cct_collective>(i), transport))
      for (const RankBucket& b : *buckets) {
        if (b.nodes == nodes) return nodes;
        if (b.nodes < nodes && (!below || b.nodes > *below)) below = b.nodes;
        if (b.nodes > nodes && (!above || b.nodes < *above)) above = b.nodes;
      }
  return below ? *below : above ? *above : nodes;
}

Selector::Selector(const Profile& profile, const std::vector<ForceRule>& force,
                   const Registry& registry, std::string_view transport, int np, int nodes) {
  std::array<Ranges, CCT_COLLECTIVE_COUNT> forced;
  for (const ForceRule& f : force)
    add(forced[f.collective], f.collective, f.rule, true, false, registry, "CCT_FORCE");
  for (int i = 0; i < CCT_COLLECTIVE_COUNT; ++i) ranges_[i][kUntyped] = forced[i];
  const int tuned = closest_tuned_nodes(profile, transport, nodes);
  if (tuned != nodes)
    warnings_.push_back("profile has no rules for " + std::to_string(nodes) + " node" +
                        (nodes == 1 ? "" : "s") + ": using its " + std::to_string(tuned) +
                        "-node rules, the nearest node count it has");
  std::set<int32_t> stretched_from;  // the measured sizes this communicator's rules come from
  // The predicted buckets used, by shape: their errors in %.
  std::map<PredictedShape, std::set<long>> predictions;
  for (int i = 0; i < CCT_COLLECTIVE_COUNT; ++i) {
    const auto c = static_cast<cct_collective>(i);
    for (const RankBucket* b : buckets_for(profile, c, transport, tuned, np)) {
      if (b->measured_np && *b->measured_np != np) stretched_from.insert(*b->measured_np);
      if (const std::optional<Prediction>& p = b->predicted) {
        std::set<long>& errors = predictions[{p->np, b->nodes, p->from_np, p->from_nodes}];
        if (p->error) errors.insert(std::lround(*p->error * 100));
      }
      add_bucket_rules(c, forced[i], *b, registry);
    }
  }
  for (int32_t measured : stretched_from)
    warnings_.push_back("profile rules measured at " + std::to_string(measured) +
                        " ranks used for " + std::to_string(np) + " ranks on " +
                        std::string(transport) + ": tune with --np " + std::to_string(np) +
                        " for rules measured there");
  for (const auto& [shape, errors] : predictions)
    warnings_.push_back(prediction_note(shape, errors, np, transport));
}

// The bucket's rules after the forced ones, in the untyped slot of c, the
// slot of roots other than 0, or the slot of each type the bucket names
// (compiled once, so that a rule left out is said once).
void Selector::add_bucket_rules(cct_collective c, const Ranges& forced, const RankBucket& bucket,
                                const Registry& registry) {
  Ranges ranges;
  for (const SizeRule& r : bucket.sizes)
    add(ranges, c, r, false, bucket.predicted.has_value(), registry, "profile");
  const Selection::Bucket kind = bucket.nonzero_roots        ? Selection::Bucket::kNonzeroRoots
                                 : !bucket.datatypes.empty() ? Selection::Bucket::kElementType
                                                             : Selection::Bucket::kEveryCall;
  for (Range& r : ranges)
    for (Selection& s : r.candidates) s.bucket = kind;
  ranges.insert(ranges.begin(), forced.begin(), forced.end());
  if (kind == Selection::Bucket::kEveryCall) ranges_[c][kUntyped] = std::move(ranges);
  if (kind == Selection::Bucket::kNonzeroRoots) ranges_[c][kNonzeroRoots] = std::move(ranges);
  for (cct_datatype t : bucket.datatypes) ranges_[c][t] = ranges;
}

// A rule's candidates in order; each one the reader or the registry
// rejects is left out alone, with a warning. With none left, the rule's
// sizes take the built-in default.
void Selector::add(Ranges& ranges, cct_collective c, const SizeRule& rule, bool forced,
                   bool predicted, const Registry& registry, const std::string& origin) {
  const std::string rule_name = std::string(collective_name(c)) + " [" +
                                detail::format_size(rule.lo) + ", " + detail::format_size(rule.hi) +
                                ")";
  // A profile built in code has not been through the reader's checks, and
  // an empty range would wrap around in `last`.
  if (rule.lo >= rule.hi) {
    warnings_.push_back(origin + " rule " + rule_name + " left out: empty range");
    return;
  }
  std::vector<Selection> candidates;
  const auto take = [&](const auto& candidate, uint32_t fallback) {
    const std::string which = fallback == 0 ? "" : " fallback " + std::to_string(fallback);
    if (!candidate.disabled.empty()) {  // the reader's reason names the file and line
      warnings_.push_back(candidate.disabled + "; rule " + rule_name + which + " left out");
      return;
    }
    const std::string problem =
        detail::rule_problem(registry, c, candidate.algorithm, candidate.params);
    if (!problem.empty()) {
      warnings_.push_back(origin + " rule " + rule_name + which + " left out: " + problem);
      return;
    }
    const AlgorithmEntry* alg = registry.find_algorithm(c, candidate.algorithm);
    candidates.push_back({alg, alg->param_values(candidate.params), forced, predicted,
                          Selection::Bucket::kEveryCall, selections_++, fallback, rule.lo, rule.hi,
                          candidate.median_s});
  };
  take(rule, 0);
  for (std::size_t i = 0; i < rule.fallbacks.size(); ++i)
    take(rule.fallbacks[i], static_cast<uint32_t>(i + 1));
  if (candidates.empty()) {  // each was left out with a warning, the last one just now
    warnings_.back() += rule.fallbacks.empty() ? ", its sizes take the built-in default"
                                               : "; no candidate left, its sizes take the "
                                                 "built-in default";
    return;
  }
  ranges.push_back(Range{.lo = to_size(rule.lo),
                         .last = to_size(rule.hi) == SIZE_MAX ? SIZE_MAX : to_size(rule.hi) - 1,
                         .candidates = std::move(candidates)});
}

const Selector::Ranges& Selector::ranges_for(cct_collective c, cct_datatype dtype,
                                             int root) const noexcept {
  const Slots& slots = ranges_[c];
  if (root != 0 && !slots[kNonzeroRoots].empty()) return slots[kNonzeroRoots];
  const bool typed = dtype >= 0 && dtype < CCT_DATATYPE_COUNT && !slots[dtype].empty();
  return typed ? slots[dtype] : slots[kUntyped];
}

std::span<const Selection> Selector::in(const Ranges& ranges, std::size_t bytes) noexcept {
  for (const Range& r : ranges)
    if (bytes >= r.lo && bytes <= r.last) return r.candidates;
  return {};
}

std::span<const Selection> Selector::candidates(cct_collective c, std::size_t bytes,
                                                cct_datatype dtype, int root) const noexcept {
  if (c < 0 || c >= CCT_COLLECTIVE_COUNT) return {};
  return in(ranges_for(c, dtype, root), bytes);
}

const Selection* Selector::select(cct_collective c, std::size_t bytes, cct_datatype dtype,
                                  int root) const noexcept {
  const std::span<const Selection> all = candidates(c, bytes, dtype, root);
  return all.empty() ? nullptr : &all.front();
}

// The slots ranges_for() may look in for a call at `root`: the nonzero
// roots' alone where the root is not 0 and a bucket gave such roots rules;
// else the untyped one (counted even when empty: its calls take the
// defaults) and each typed one in use.
template <class Pred>
bool Selector::any_slot(cct_collective c, int root, Pred pred) const noexcept {
  if (c < 0 || c >= CCT_COLLECTIVE_COUNT) return false;
  const Slots& slots = ranges_[c];
  if (root != 0 && !slots[kNonzeroRoots].empty()) return pred(slots[kNonzeroRoots]);
  for (std::size_t t = 0; t < kNonzeroRoots; ++t)
    if ((t == kUntyped || !slots[t].empty()) && pred(slots[t])) return true;
  return false;
}

// Sizes from 0 up, each range of the first matching rule or of no rule
// (the default) in turn, against the first piece.
template <class Same>
bool Selector::every_piece(const Ranges& ranges, Same same) noexcept {
  const std::span<const Selection> first = in(ranges, 0);
  if (!same(first, first)) return false;
  for (const Range& r : ranges) {
    const std::span<const Selection> at_lo = in(ranges, r.lo);
    const std::span<const Selection> after = r.last == SIZE_MAX ? at_lo : in(ranges, r.last + 1);
    if (!same(at_lo, first) || !same(after, first)) return false;
  }
  return true;
}

// The candidate lists are compared whole: where a first choice cannot run
// a call, sizes with different fallbacks would choose differently.
bool Selector::size_matters(cct_collective c, int root) const noexcept {
  const auto same = [](std::span<const Selection> a, std::span<const Selection> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Selection& x, const Selection& y) {
                        return x.algorithm == y.algorithm && x.params == y.params;
                      });
  };
  return any_slot(c, root, [&](const Ranges& r) { return !r.empty() && !every_piece(r, same); });
}

bool Selector::library_everywhere(cct_collective c, int root,
                                  bool no_rule_is_library) const noexcept {
  const auto library = [&](std::span<const Selection> piece, std::span<const Selection>) {
    if (piece.empty()) return no_rule_is_library;
    return (piece.front().algorithm->desc->required_caps & CCT_CAP_LIBRARY) != 0;
  };
  return c >= 0 && c < CCT_COLLECTIVE_COUNT &&
         !any_slot(c, root, [&](const Ranges& r) { return !every_piece(r, library); });
}

bool Selector::takes_device_memory(cct_collective c) const noexcept {
  const auto on_device = [](const Ranges& r) {
    return std::ranges::any_of(r, [](const Range& range) {
      return range.candidates.front().algorithm->runs_on_device_memory();
    });
  };
  return any_slot(c, 0, on_device) || any_slot(c, 1, on_device);  // every root
}

}  // namespace cct
