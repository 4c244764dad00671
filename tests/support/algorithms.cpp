#include "support/algorithms.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "support/harness.hpp"

namespace cct::test {
namespace {

constexpr int kRankCounts[] = {1, 2, 3, 4, 5, 8};
constexpr int kCandidateRanks = 4;
// A launch takes well under a second; a hung algorithm fails in this time.
constexpr double kTimeoutS = 60;

std::string describe(const AlgorithmEntry& alg, int ranks, const std::vector<int64_t>& params) {
  std::string s = std::string(alg.desc->name) + " on " + std::to_string(ranks) + " ranks";
  for (uint32_t i = 0; i < alg.desc->nparams; ++i)
    s += std::string(i == 0 ? ", " : " ") + alg.desc->params[i].name + "=" +
         std::to_string(params[i]);
  return s;
}

void launch(const AlgorithmEntry& alg, int ranks, const std::vector<int64_t>& params,
            const std::function<void(Communicator&, Plan&)>& body) {
  INFO(describe(alg, ranks, params));
  auto run = [&](Communicator& comm) {
    Plan plan(alg, comm, params);
    body(comm, plan);
  };
  REQUIRE(on_ranks(ranks, run, kTimeoutS) == "");
}

}  // namespace

cct_coll_args coll_args(cct_collective c, const void* sendbuf, void* recvbuf, std::size_t count,
                        cct_datatype dtype, int root, uint32_t tag, cct_op op) {
  return make_call(c, sendbuf, recvbuf, count, dtype, op, root, tag);
}

void sweep(cct_collective c, std::string_view name,
           const std::function<void(Communicator&, Plan&)>& body) {
  const AlgorithmEntry& alg = algorithm(c, name);
  const std::vector<int64_t> defaults = alg.default_params();
  for (int ranks : kRankCounts) launch(alg, ranks, defaults, body);
  for (uint32_t p = 0; p < alg.desc->nparams; ++p) {
    const cct_param_desc& param = alg.desc->params[p];
    for (uint32_t i = 0; i < param.ncandidates; ++i) {
      if (param.candidates[i] == defaults[p]) continue;
      std::vector<int64_t> values = defaults;
      values[p] = param.candidates[i];
      launch(alg, kCandidateRanks, values, body);
    }
  }
}

void expect_refused(Communicator& comm, cct_collective c, std::string_view name,
                    const std::vector<int64_t>& params, const std::string& why) {
  const AlgorithmEntry& alg = algorithm(c, name);
  const std::string label = describe(alg, comm.size(), params);
  const cct_coll_args args = coll_args(c, nullptr, nullptr, 0, CCT_INT32, 0, 0);
  const std::string got = why_unusable(alg, comm, args, params);
  expect(got == why, label + ": can_use said '" + got + "', want '" + why + "'");
  bool refused = false;
  try {
    Plan plan(alg, comm, params);
  } catch (const Error& e) {
    refused = e.status() == CCT_ERR_UNSUPPORTED;
  }
  expect(refused, label + ": prepare did not refuse with CCT_ERR_UNSUPPORTED");
}

}  // namespace cct::test
