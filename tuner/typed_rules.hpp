// ccautotune tuner: a reduction's rules of its own for an element type.
//
// The search measures a reduction's winner and finalists again in int32
// (the reference) and in each type of --datatypes, all timed together
// (search.hpp, step 6): `typed` rows, which the untyped rules never weigh
// (winners.hpp). Here, per (collective, transport, nodes, type), each
// measured size gets the winner among its rows in the type, the reference
// winner among the same candidates kept unless another is faster beyond
// the noise (choose_winner, the reference winner as the previous one: a
// type's rules differ only where its figures say so, against figures
// taken beside them). Where that winner is not the untyped rule's, at
// some size of some communicator size, the type gets a bucket of its own
// (RankBucket::datatypes) for each communicator size where it is: the
// untyped bucket with those sizes' ranges given to the type's winner (up
// to the boundaries the untyped rules would put between measured sizes),
// each falling back to the untyped winner, then to that one's fallbacks.
// A communicator size where the type changes nothing gets none.
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
  // One line per (collective, transport, nodes, type) that got rules of
  // its own, with the sizes where its winners differ, then one line of how
  // many of those measured did; nothing where no type was measured.
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
