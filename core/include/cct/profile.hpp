// ccautotune host library: the selection profile (what the tuner learned and
// the runtime applies), its YAML form, the CCT_FORCE override and the
// compiled lookup used on every collective call. The schema is documented
// field by field in profiles/README.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cct/abi/algorithm.h"
#include "cct/registry.hpp"

namespace cct {

// The schema version this build writes, and the oldest it still reads: 1
// had one algorithm per size range, 2 adds its fallbacks.
inline constexpr int kProfileSchema = 3;
inline constexpr int kOldestProfileSchema = 1;
// An unbounded upper end: "max" in a profile or in CCT_FORCE.
inline constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max();
inline constexpr int32_t kMaxRanks = std::numeric_limits<int32_t>::max();

// A rule is keyed by the message size its collective's row defines
// (message_bytes() of cct/collectives.hpp).

// The machine a profile was tuned on.
struct MachineInfo {
  std::string fingerprint;  // Topology::fingerprint(): what profiles are keyed by
  std::string summary;      // Topology::summary()
  // The largest shape tuned (the job's); the shape of each rule is in its
  // RankBucket.
  int nodes = 1;
  int ranks_per_node = 1;
  int packages = 1;
  int numa_nodes = 1;
  int cores = 1;
  int pus = 1;
  std::string caches;  // free text, e.g. "L1d 32k x8, L2 1M x8, L3 32M"
  bool operator==(const MachineInfo&) const = default;
};

// A candidate a size rule falls back to, in order, where the ones before
// it cannot run a call: the MPI library's own call outside an MPI program
// or on a call cct's conversion cannot hand it (8-bit sums), an algorithm
// needing a capability the transport lacks, or refusing the call.
struct Fallback {
  std::string algorithm;
  std::map<std::string, int64_t> params;  // by name; missing ones take their default
  std::optional<double> median_s;         // its measured figure where the range starts
  // Why the reader left this fallback alone out, or empty (as
  // SizeRule::disabled, for a fallback).
  std::string disabled;
  bool operator==(const Fallback&) const = default;
};

// One message-size range [lo, hi), the algorithm that won it, and the
// candidates to run in its place where it cannot run a call.
struct SizeRule {
  int64_t lo = 0;
  int64_t hi = kMaxBytes;  // exclusive; kMaxBytes = unbounded
  std::string algorithm;
  std::map<std::string, int64_t> params;  // by name; missing ones take their default
  std::optional<double> median_s;         // the measured figure that won
  // How sure the pick is (schema 3; the tuner's segmentation): how much
  // slower the best other candidate was than the pick over the range's
  // measured sizes (the geometric mean of their ratios, less 1; below 0
  // where others were faster, but not by enough to pay for a switch of
  // rules), and the noise of the figures there (the median over those
  // sizes, the same fraction). A margin below the noise is a near-tie:
  // another run may pick the other.
  std::optional<double> margin;
  std::optional<double> noise;
  // Why the reader left this rule's first choice out ("<file>:<line>:
  // <what>"), or empty: an algorithm or parameter this build does not
  // have, or a field of a newer version, disables it alone. Its fallbacks
  // (what the reader accepted of them) still serve its sizes, else the
  // built-in default does, so that one bad rule never costs the rest.
  std::string disabled;
  std::vector<Fallback> fallbacks;  // in order of preference; schema 2
  bool operator==(const SizeRule&) const = default;
};

// Rules the tuner's cost model predicted for a communicator shape it did
// not measure (tuner/predict.hpp): each candidate's figure measured at
// from_np ranks on from_nodes nodes, scaled by the model to np ranks on the
// bucket's nodes.
struct Prediction {
  int32_t np = 0;       // the size predicted, within the bucket's np range
  int32_t from_np = 0;  // the measured size the figures were scaled from
  // The node count of the measured shape: 1 on one node; across nodes,
  // another count with as many ranks on each node (2 nodes x 4 for 8 x 4).
  int32_t from_nodes = 1;
  // How far the model was off where it could be checked: the median
  // relative error of its predicted times when it predicted one measured
  // size from another; absent where only one size was measured.
  std::optional<double> error;
  bool operator==(const Prediction&) const = default;
};

// The rules of one communicator shape: communicators of np_lo..np_hi ranks
// spanning `nodes` nodes. Ordered size ranges that cover 0..max without gaps
// or overlaps.
struct RankBucket {
  int32_t np_lo = 1;
  int32_t np_hi = kMaxRanks;  // inclusive; kMaxRanks = unbounded
  // The nodes the communicators span: a 2-node communicator of 8 ranks
  // crosses the network where a 1-node one of 8 does not, so each node
  // count is tuned, and looked up, on its own. Never above np_hi.
  int32_t nodes = 1;
  // The communicator size its rules were measured at (within [np_lo,
  // np_hi]); the other sizes of the range are stretched from it, which the
  // runtime says. Absent in profiles written before it was recorded.
  std::optional<int32_t> measured_np;
  // Set where the cost model predicted the rules instead (Prediction).
  std::optional<Prediction> predicted;
  // The element types whose calls the bucket serves, for a reduction whose
  // winners differ by element type (a float sum is compiled and vectorised
  // differently from an int32 one): ascending, no type twice. Empty, as in
  // every profile written before it: every type no bucket of the same
  // shape names. Only reductions have typed buckets.
  std::vector<cct_datatype> datatypes;
  // Whether the bucket serves the calls whose root is not 0, for a rooted
  // collective whose winners differ there (binomial gather copies the
  // blocks once more into rank order at another root; on the RapidIO
  // simulator switch_gather loses 64 B to linear at root 15 only); the
  // bucket of the same shape without it then serves root 0 only. False,
  // as in every profile written before it: every root. Never together
  // with datatypes.
  bool nonzero_roots = false;
  std::vector<SizeRule> sizes;
  bool operator==(const RankBucket&) const = default;
};

// Buckets of one (collective, transport). Buckets of the same node count
// have disjoint rank ranges; a communicator size outside every bucket of
// its node count falls back to the built-in default.
using TransportRules = std::map<std::string, std::vector<RankBucket>>;

struct Profile {
  std::string tool_version;
  std::string date;  // ISO 8601, UTC
  MachineInfo machine;
  std::map<std::string, std::string> tuning;  // settings of the run (min_bytes, reps, ...)
  std::map<cct_collective, TransportRules> rules;
  bool operator==(const Profile&) const = default;
};

// What the reader does with a problem inside one size rule: an algorithm
// the registry does not know for that collective, a parameter the algorithm
// does not declare or a value outside its candidates or range, a parameter
// or figure that is not a number, or a field it does not know.
enum class RuleProblems {
  kFail,         // throw, as for any other problem (ccprofile validate, tests)
  kDisableRule,  // keep reading; the rule gets SizeRule::disabled (the runtime)
};

// Reads and validates a profile. Throws cct::Error "<file>:<line>: <what>"
// for malformed YAML, a wrong schema version, missing, mistyped or unknown
// fields, size ranges that overlap, leave gaps, or do not span 0..max, rank
// ranges of the same node count that overlap, and a node count of 0 or
// above the bucket's np_hi (a bucket no communicator can match). Problems
// inside one size rule (see RuleProblems; the algorithm and its parameters
// are checked only with a registry) throw too, or disable that rule alone.
Profile load_profile(const std::string& path, const Registry* registry,
                     RuleProblems rule_problems = RuleProblems::kFail);
// The same from text; `source` stands for the file name in messages.
Profile profile_from_yaml(const std::string& text, const std::string& source,
                          const Registry* registry,
                          RuleProblems rule_problems = RuleProblems::kFail);

// A typed bucket's element types as profiles and tools name them ("float,
// double"); empty for an untyped one.
std::string datatypes_text(const std::vector<cct_datatype>& types);
// The calls a bucket serves beyond its shape, as tools name them: its
// element types ("float, double"), "roots other than 0", or empty for a
// bucket of every call of its shape.
std::string served_calls_text(const RankBucket& b);
// What tools call the calls of a bucket of RankBucket::nonzero_roots.
inline constexpr const char* kNonzeroRootsText = "roots other than 0";

// Why each rule or fallback the reader disabled was left out
// ("<file>:<line>: <what>"), in the profile's order: what ccinfo and
// ccprofile list.
std::vector<std::string> disabled_rules(const Profile& profile);

// The YAML form of a profile (sizes written like "64k").
std::string profile_to_yaml(const Profile& profile);
// Writes atomically: a temporary file in the same directory, then rename.
// On failure the previous file is untouched and cct::Error names the path.
void save_profile(const Profile& profile, const std::string& path);

// The path of a profile in `dirs` (searched in order) whose machine
// fingerprint is `fingerprint`: <dir>/<fingerprint>.yaml first, then the
// other *.yaml files of the directory; the content decides, not the name.
// Empty when none matches.
std::string find_profile_for(const std::string& fingerprint, const std::vector<std::string>& dirs);

// Where the runtime looks for profiles, in order: CCT_PROFILE_PATH's
// directories; this libcct's own directory, found from where the library
// is (build/profiles in the build tree; installed, the install's
// <prefix>/share/ccautotune/profiles, with the shipped profiles); the
// user's $XDG_DATA_HOME (or ~/.local/share)/ccautotune/profiles.
std::vector<std::string> profile_dirs();

// What a machine's profile is chosen by: its fingerprints
// (Topology::fingerprints(), the current form first) and its summary
// (Topology::summary()).
struct MachineIdentity {
  std::vector<std::string> fingerprints;
  std::string summary;  // empty: no machine of the same kind is looked for
};

// The profile file the runtime uses on this machine and why, the first of:
//  1. CCT_PROFILE's file;
//  2. the first file of profile_dirs() that declares one of this machine's
//     fingerprints (the first fingerprint any file declares, so that the
//     current form wins over an earlier one): an exact match always wins;
//  3. the profile of the nearest machine of this one's kind
//     (cct/machine_kind.hpp: the same items, other counts or cache sizes),
//     its differences in `differences`; the first file wins a tie.
// path is empty when there is none. CCT_PROFILE=none turns profiles off:
// the built-in defaults (and CCT_FORCE) whatever the directories hold, as
// a baseline to compare a profile against, and for the test suite, which
// must not depend on what a user's tuning left in build/profiles.
struct ProfileChoice {
  std::string path;
  // "CCT_PROFILE", "this machine's fingerprint", "a machine of the same
  // kind (fingerprint ...)" or kProfileOff.
  std::string why;
  // Taken for a machine of the same kind: how that machine differs from
  // this one (MachineDifference::text, or "nothing the summaries show"
  // where only the fingerprints differ). Empty otherwise.
  std::string differences;
  bool similar = false;  // taken for a machine of the same kind (3. above)
  bool off() const;      // CCT_PROFILE=none
};
inline constexpr const char* kProfileOff = "CCT_PROFILE=none";
ProfileChoice choose_profile(const MachineIdentity& machine);
ProfileChoice choose_profile(const std::string& fingerprint);

// The profile in `dirs` tuned on the machine nearest to the one summarised
// by `summary` among those of its kind (cct/machine_kind.hpp), the first
// file in `dirs` order winning a tie; path empty when no file is of its
// kind. What choose_profile takes where no fingerprint matches.
ProfileChoice find_similar_profile(const std::string& summary,
                                   const std::vector<std::string>& dirs);

// Where ccautotune writes by default, so that the runtime finds it: the
// build tree's profiles/ when libcct runs from a build tree; else the
// installed directory when it is writable (an administrator tuning for
// every user); else the user's directory.
std::string default_profile_out_dir();

// One CCT_FORCE rule: for every transport and communicator size, messages
// of `collective` in [rule.lo, rule.hi) use rule.algorithm.
struct ForceRule {
  cct_collective collective = CCT_BARRIER;
  SizeRule rule;
  bool operator==(const ForceRule&) const = default;
};

// Parses CCT_FORCE text: rules separated by ';', each
//   collective:lo-hi:algorithm  or  collective:lo-hi:algorithm(name=value,...)
// with sizes like 0, 4k, 1M and hi possibly "max". A bad rule gets a
// cct::Error naming the rule and the character position (1-based) of what
// is wrong: thrown, or, given `skipped`, its message appended there and the
// other rules kept. With a registry, algorithms and parameter values are
// checked as in a profile.
std::vector<ForceRule> parse_force(std::string_view text, const Registry* registry,
                                   std::vector<std::string>* skipped = nullptr);

// A rule's choice as CCT_FORCE writes it ("knomial(radix=4)",
// "chain(segment=32k)"), every parameter given, defaults filled in, in the
// algorithm's table order; as the rule writes it where the registry does
// not accept it. For every place a person reads or copies a choice from.
std::string format_rule_choice(cct_collective c, const SizeRule& rule, const Registry& registry);
std::string format_rule_choice(cct_collective c, const Fallback& fallback,
                               const Registry& registry);

// Why `value` is not a valid value of parameter `param` (not one of its
// candidates, outside its range, off its step), or "" when it is.
std::string param_value_problem(const cct_param_desc& param, int64_t value);

// What a lookup returns: an algorithm and its parameter values in the
// order of its parameter table, defaults filled in.
struct Selection {
  const AlgorithmEntry* algorithm = nullptr;
  std::vector<int64_t> params;
  bool forced = false;     // from CCT_FORCE rather than the profile
  bool predicted = false;  // from a bucket the cost model predicted (RankBucket::predicted)
  // From a bucket of the call's element type (RankBucket::datatypes), or
  // of roots other than 0 (RankBucket::nonzero_roots), or of every call.
  enum class Bucket : uint8_t { kEveryCall, kElementType, kNonzeroRoots };
  Bucket bucket = Bucket::kEveryCall;
  uint32_t index = 0;     // 0..Selector::selections()-1, for the caller's caches
  uint32_t fallback = 0;  // 0: the rule's first choice; n: its n-th fallback
  // The rule it came from, for tools that explain a choice (ccprofile).
  int64_t lo = 0;
  int64_t hi = kMaxBytes;
  std::optional<double> median_s;
};

// The node count whose rules stand for `nodes` on this transport: `nodes`
// when some collective was tuned for it (or none was tuned at all), else
// the largest tuned count below it, else the smallest above. Decided for
// the whole transport, not per collective, so that one run never mixes the
// rules of different shapes.
int closest_tuned_nodes(const Profile& profile, std::string_view transport, int nodes);

// The rules of a profile and CCT_FORCE compiled for one transport and one
// communicator shape (size and nodes). select() does no string work and no allocation.
// Entries point into the registry: it must outlive the selector and load no
// further libraries meanwhile.
class Selector {
 public:
  Selector() = default;
  // Force rules come first (in their order; they apply to every shape,
  // element type and root), then the profile's bucket for (transport,
  // nodes, np): for a call whose root is not 0, a bucket of that shape for
  // such roots (RankBucket::nonzero_roots); else for a call of an element
  // type a typed bucket of that shape names (RankBucket::datatypes), that
  // bucket; else the bucket of every call. The root's bucket comes before
  // the type's: neither was measured at both (the root's in int32, the
  // type's at root 0), and another root changes which data crosses which
  // link, a type only what adding an element costs. When the profile
  // has no bucket of this transport for `nodes` nodes (tuned on 2, run on
  // 16), the buckets of its closest tuned node count stand in: the largest
  // below `nodes`, else the smallest above, since a shape's rules are a
  // better guess for a similar shape than the built-in defaults; warnings()
  // says so once. A rule whose algorithm or parameters the registry rejects
  // is left out, so its sizes fall back to the default; warnings() says why.
  Selector(const Profile& profile, const std::vector<ForceRule>& force, const Registry& registry,
           std::string_view transport, int np, int nodes = 1);

  // The candidates of the first rule of collective c whose range holds
  // `bytes`, for calls of element type `dtype` with root `root`, in order
  // (its first choice, then its fallbacks); empty when no rule does (the
  // caller then uses its built-in default). CCT_DATATYPE_COUNT and root 0:
  // the rules of every call.
  std::span<const Selection> candidates(cct_collective c, std::size_t bytes,
                                        cct_datatype dtype = CCT_DATATYPE_COUNT,
                                        int root = 0) const noexcept;
  // The first of them, or nullptr.
  const Selection* select(cct_collective c, std::size_t bytes,
                          cct_datatype dtype = CCT_DATATYPE_COUNT, int root = 0) const noexcept;
  // Whether the rules a call of c at `root` looks in choose differently
  // for different sizes, for some element type (then a call whose size no
  // rank knows alone must agree on it first; every rank passes the same
  // type and root). Root 0 and the other roots are asked apart, so that
  // rules of their own for roots other than 0 make no root-0 call agree.
  bool size_matters(cct_collective c, int root) const noexcept;
  // Whether every size of c at `root` (as size_matters), of every element
  // type, has a rule whose first choice needs the collective library
  // (CCT_CAP_LIBRARY), or, with `no_rule_is_library`, no rule
  // (Runtime::Options::library_without_rule): the MPI interposer then
  // hands such calls to the library before looking at their arguments.
  bool library_everywhere(cct_collective c, int root,
                          bool no_rule_is_library = false) const noexcept;
  // Whether some rule of c chooses first an algorithm that runs on device
  // memory (AlgorithmEntry::runs_on_device_memory): the runtime then asks,
  // for the calls of c, whether every rank passes device memory
  // (Runtime::use_device). Rules that put host algorithms first everywhere
  // change too little beside the host rules, staged, to be worth asking.
  bool takes_device_memory(cct_collective c) const noexcept;
  const std::vector<std::string>& warnings() const { return warnings_; }
  // How many selections select() can return (their `index` is below this).
  uint32_t selections() const { return selections_; }

 private:
  struct Range {
    std::size_t lo;
    std::size_t last;                   // inclusive, so that an unbounded range holds SIZE_MAX too
    std::vector<Selection> candidates;  // not empty
  };
  using Ranges = std::vector<Range>;
  // The ranges of c's rules of one element type (its slot), of every call
  // (kUntyped), or of the roots other than 0 (kNonzeroRoots).
  static constexpr std::size_t kUntyped = CCT_DATATYPE_COUNT;
  static constexpr std::size_t kNonzeroRoots = kUntyped + 1;
  using Slots = std::array<Ranges, kNonzeroRoots + 1>;

  void add_bucket_rules(cct_collective c, const Ranges& forced, const RankBucket& bucket,
                        const Registry& registry);
  void add(Ranges& ranges, cct_collective c, const SizeRule& rule, bool forced, bool predicted,
           const Registry& registry, const std::string& origin);
  // The ranges a call of c of type dtype at root `root` looks in: those of
  // roots other than 0 where its root is one and a bucket gave them some,
  // else its type's where a typed bucket did, else the untyped ones.
  const Ranges& ranges_for(cct_collective c, cct_datatype dtype, int root) const noexcept;
  static std::span<const Selection> in(const Ranges& ranges, std::size_t bytes) noexcept;
  // Whether `same(piece, first piece)` holds for each piece of the sizes
  // of `ranges` (a range of one rule or of no rule, from 0 up).
  template <class Same>
  static bool every_piece(const Ranges& ranges, Same same) noexcept;
  // Whether pred(ranges) holds for a slot of c in use by calls at `root`
  // (ranges_for): the untyped one, or another that has ranges.
  template <class Pred>
  bool any_slot(cct_collective c, int root, Pred pred) const noexcept;

  std::array<Slots, CCT_COLLECTIVE_COUNT> ranges_;
  std::vector<std::string> warnings_;
  uint32_t selections_ = 0;
};

}  // namespace cct
