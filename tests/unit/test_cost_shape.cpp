// Every algorithm of the tree states its cost shape (cct_algorithm_desc.cost),
// but the MPI library's own call, whose cost nobody here knows: at every
// shape it can run on, for every parameter value, a cost that is finite,
// not negative, moves something between two ranks or more, grows with the
// message and crosses between the halves of the ranks.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/registry.hpp"
#include "tuner/cost_shape.hpp"

namespace {

using cct::tuner::ShapeComm;

const std::string kPlugins = CCT_TEST_BUILD_DIR "/lib/cct";

// Ranks in groups of `group` at one level of kind `kind`.
cct::LevelPartition grouped(int np, int group, cct_level_kind kind) {
  cct::LevelPartition level{kind, (np + group - 1) / group, {}};
  for (int r = 0; r < np; ++r) level.group_of.push_back(r / group);
  return level;
}

// Flat shapes, and shapes with levels: 2 per L3 and 4 per NUMA node, and 4
// per node across nodes.
std::vector<ShapeComm> shapes() {
  std::vector<ShapeComm> s;
  for (int np : {1, 2, 3, 4, 7, 16, 64}) s.emplace_back(np, 1, std::vector<cct::LevelPartition>{});
  s.emplace_back(8, 1, std::vector{grouped(8, 2, CCT_LEVEL_L3), grouped(8, 4, CCT_LEVEL_NUMA)});
  s.emplace_back(16, 4, std::vector{grouped(16, 4, CCT_LEVEL_NODE)});
  s.emplace_back(32, 4,
                 std::vector{grouped(32, 4, CCT_LEVEL_NUMA), grouped(32, 8, CCT_LEVEL_NODE)});
  return s;
}

// The default values, then each parameter through its candidates (or the
// ends of its range) with the others at their defaults.
std::vector<std::vector<int64_t>> param_sets(const cct::AlgorithmEntry& a) {
  std::vector<std::vector<int64_t>> sets{a.default_params()};
  for (uint32_t i = 0; i < a.desc->nparams; ++i) {
    const cct_param_desc& p = a.desc->params[i];
    std::vector<int64_t> values(p.candidates, p.candidates + p.ncandidates);
    if (p.ncandidates == 0) values = {p.lo, p.hi};
    for (int64_t v : values) {
      sets.push_back(a.default_params());
      sets.back()[i] = v;
    }
  }
  return sets;
}

double moved(const cct_cost& c) {
  double sum = c.reduced_bytes + c.copied_bytes;
  for (const cct_cost_span& s : c.spans) sum += s.messages + s.bytes;
  return sum;
}

double bytes_moved(const cct_cost& c) {
  double sum = c.reduced_bytes + c.copied_bytes;
  for (const cct_cost_span& s : c.spans) sum += s.bytes;
  return sum;
}

void check_sane(const cct_cost& c, const ShapeComm& shape) {
  for (int s = 0; s < CCT_COST_SPANS; ++s) {
    INFO("span " << s);
    CHECK(std::isfinite(c.spans[s].messages));
    CHECK(std::isfinite(c.spans[s].bytes));
    CHECK(c.spans[s].messages >= 0);
    CHECK(c.spans[s].bytes >= 0);
    if (s > shape.raw()->nlevels) CHECK(c.spans[s].messages + c.spans[s].bytes == 0);
  }
  CHECK(std::isfinite(c.reduced_bytes));
  CHECK(std::isfinite(c.copied_bytes));
  CHECK(std::isfinite(c.bisection_bytes));
  CHECK(c.reduced_bytes >= 0);
  CHECK(c.copied_bytes >= 0);
  CHECK(c.bisection_bytes >= 0);
}

// Whether the shape is one the algorithm's declared limits allow.
bool allowed(const cct::AlgorithmEntry& a, const ShapeComm& shape) {
  const int np = shape.np();
  if (np < a.desc->min_ranks || (a.desc->max_ranks > 0 && np > a.desc->max_ranks)) return false;
  if ((a.desc->limits & CCT_LIMIT_POW2_ONLY) && (np & (np - 1)) != 0) return false;
  return !(a.desc->limits & CCT_LIMIT_NEEDS_LEVELS) || shape.raw()->nlevels > 0;
}

}  // namespace

TEST_CASE("every algorithm but the library's call states a sane cost shape", "[cost]") {
  cct::Registry registry;
  registry.load_directories({kPlugins});
  REQUIRE(registry.algorithms().size() > 90);
  const std::vector<ShapeComm> all_shapes = shapes();
  for (const cct::AlgorithmEntry& a : registry.algorithms()) {
    const std::string name =
        std::string(cct::collective_name(a.desc->collective)) + "/" + a.desc->name;
    INFO(name);
    if (a.desc->required_caps & CCT_CAP_LIBRARY) {
      CHECK_FALSE(a.states_cost());
      continue;
    }
    CHECK(a.states_cost());
    if (!a.states_cost()) continue;
    int answered = 0;
    for (const ShapeComm& shape : all_shapes) {
      if (!allowed(a, shape)) continue;
      INFO("np " << shape.np() << ", levels " << shape.raw()->nlevels);
      for (const std::vector<int64_t>& params : param_sets(a)) {
        std::string why;
        const auto small =
            cct::tuner::cost_of_call(a, params, shape, a.desc->collective, 1024, &why);
        const auto large =
            cct::tuner::cost_of_call(a, params, shape, a.desc->collective, 1 << 20, &why);
        INFO(why);
        // The defaults must be answered on every shape the limits allow.
        if (params == a.default_params()) REQUIRE((small && large));
        if (!small || !large) continue;
        ++answered;
        check_sane(*small, shape);
        check_sane(*large, shape);
        if (shape.np() < 2) continue;
        CHECK(moved(*small) > 0);
        if (a.desc->collective == CCT_BARRIER) continue;
        CHECK(bytes_moved(*large) > bytes_moved(*small));
        // Every collective but the barrier moves data from one half of
        // the ranks to the other.
        CHECK(large->bisection_bytes > 0);
      }
    }
    CHECK(answered > 0);
  }
}

TEST_CASE("a cost shape follows the algorithm's structure", "[cost]") {
  cct::Registry registry;
  registry.load_directories({kPlugins});
  const cct::AlgorithmEntry* binomial = registry.find_algorithm(CCT_BCAST, "binomial");
  REQUIRE(binomial);
  const ShapeComm flat16(16, 1, {});
  std::string why;
  const auto c = cct::tuner::cost_of_call(*binomial, {}, flat16, CCT_BCAST, 4096, &why);
  REQUIRE(c);
  // log2(16) rounds of the whole buffer, between any ranks; the root's
  // first send, to rank 8, alone crosses the halves.
  CHECK(c->spans[0].messages == 4);
  CHECK(c->spans[0].bytes == 4 * 4096);
  CHECK(c->bisection_bytes == 4096);
  const cct::AlgorithmEntry* chain = registry.find_algorithm(CCT_BCAST, "chain");
  REQUIRE(chain);
  const std::vector<int64_t> segment{32 << 10};
  const auto piped = cct::tuner::cost_of_call(*chain, segment, flat16, CCT_BCAST, 1 << 20, &why);
  REQUIRE(piped);
  // 32 segments behind a first one that passes 15 links: 14 + 32 steps.
  CHECK(piped->spans[0].messages == 46);
}
