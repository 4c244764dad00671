// ccautotune tuner: rules of their own for some calls of a collective: a
// reduction's element type, or a rooted collective's roots other than 0.
//
// Each is a variant of the call measured against a reference: the search
// measures a collective's winner and finalists again in the reference
// (int32; root 0) and in each variant (a type of --datatypes; the last
// rank as root), all timed together (search.hpp, steps 6 and 7): `typed`
// and `rooted` rows, which the rules of every call never weigh
// (winners.hpp). Here, per (collective, transport, nodes, variant), each
// measured size gets the winner among its rows in the variant, the
// reference winner among the same candidates kept unless another is
// faster beyond the noise (choose_winner, the reference winner as the
// previous one: a variant's rules differ only where its figures say so,
// against figures taken beside them). Those winners are then segmented
// as the rules of every call are (segmentation.hpp), the rule of every
// call in the place of the library's call: a variant's winner keeps a
// range only where it saves more than the noise and the price of its
// switches, and neighbouring sizes of one winner make one range. Where a
// winner is left that is not the rule of every call's, at some size of
// some communicator size, the variant gets a bucket of its own
// (RankBucket::datatypes, RankBucket::nonzero_roots) for each
// communicator size where it is: the bucket of
// every call with those sizes' ranges given to the variant's winner (up to
// the boundaries the rules would put between measured sizes), each falling
// back to the winner of every call, then to that one's fallbacks. A
// communicator size where the variant changes nothing gets none.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/results_csv.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {

// What varies: the facts of one kind of variant, in one table
// (variant_rules.cpp).
enum class Variation { kElementType, kRoot };
inline constexpr Variation kEveryVariation[] = {Variation::kElementType, Variation::kRoot};

// What varies, for people and in a shortlist's text: "element types", "roots".
const char* variation_name(Variation variation);
// The variation whose rows (the reference's and the variants') have this
// stage; nullopt for the rows of every call.
std::optional<Variation> variation_of(Stage stage);

struct VariantRules {
  // Buckets to add beside those of every call, by collective and transport.
  std::map<cct_collective, TransportRules> buckets;
  // One line per (collective, transport, nodes, variant) that got rules of
  // its own, with the sizes where its winners differ, then one line of how
  // many of those measured did; nothing where no variant was measured.
  std::vector<std::string> report;
  // The (collective, transport) pairs whose variants were measured.
  std::set<std::pair<cct_collective, std::string>> measured;
};

// The rules of the variants of `variation` from its rows among `rows`,
// against `plain` (pick_winners of the same rows) and the rules of every
// call built from them.
VariantRules variant_rules(Variation variation, const std::vector<ResultRow>& rows,
                           const Winners& plain,
                           const std::map<cct_collective, TransportRules>& plain_rules,
                           const Registry& registry);

// The variants' buckets added after each transport's own.
void add_variants(std::map<cct_collective, TransportRules>& rules, const VariantRules& variants);

}  // namespace cct::tuner
