// ccautotune tuner: a reduction's rules of its own for an element type.
//
// The search measures a reduction's winner and finalists again in each
// type of --datatypes (search.hpp, step 6): `typed` rows, which the
// untyped rules never weigh (winners.hpp). Here, per (collective,
// transport, nodes, type), each measured size gets the winner among its
// typed rows, the untyped winner of that size kept unless another is
// faster beyond the noise (choose_winner, the untyped winner as the
// previous one: a type's rules differ only where its figures say so).
// Where that winner differs from the untyped one at some size of some
// communicator size, the type gets buckets of its own (RankBucket::
// datatypes) at every communicator size it was measured at, each over the
// ranks of the untyped bucket of that size (so that the cost model's
// predicted buckets serve every type); else it gets none. Each typed
// rule falls back to the untyped winner of its first size, then to that
// one's fallbacks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/results_csv.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {

struct TypedRules {
  // Buckets to add beside the untyped ones, by collective and transport.
  std::map<cct_collective, TransportRules> buckets;
  // One line per (collective, transport, nodes, type) measured: whether it
  // got rules of its own, and at how many sizes its winners differ.
  std::vector<std::string> report;
};

// The typed rules from the typed rows of `rows`, against `untyped`
// (pick_winners of the same rows) and the untyped rules built from them.
TypedRules typed_rules(const std::vector<ResultRow>& rows, const Winners& untyped,
                       const std::map<cct_collective, TransportRules>& untyped_rules,
                       const Registry& registry);

// The untyped rules with the typed buckets added after each transport's own.
void add_typed(std::map<cct_collective, TransportRules>& rules, const TypedRules& typed);

}  // namespace cct::tuner
