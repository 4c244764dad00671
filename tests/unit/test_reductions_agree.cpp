// Reductions agree across ranks: every registered allreduce algorithm (the
// registry's list, so that a new plugin is covered without touching this
// file), on 2..8 ranks, every datatype x operator it accepts, at counts 1,
// 37 and 8195, half of them in place, gives every rank the very same bits
// from one call; with its default parameters on every rank count, and with
// each other candidate of each parameter once. docs/algorithms.md,
// "Reduction order", says in which order each reduction algorithm combines
// and why its ranks agree.
//
// The inputs make the order of combination matter: floating-point values
// of both signs over a wide range of magnitudes for sums (what one order
// rounds away another keeps), random mantissas for products (every product
// rounds), and signed zeros at every fifth element under min and max (the
// minimum of +0 and -0 is whichever operand the kernel keeps, so a rank
// that combines a (op) b and one that combines b (op) a differ). Integers
// are random bits: their sums and products wrap, in any order alike.
//
// Each rank copies its output into a region shared with the test process
// (support/shared_array.hpp), which compares every rank's bytes with rank
// 0's after the launch and names each call where they differ: algorithm,
// parameters, ranks, datatype, operator, count, the first element that
// differs and how many do.
//
// Where it runs: an algorithm that needs topology levels
// (CCT_LIMIT_NEEDS_LEVELS: the multinode ones) on virtual nodes of a
// synthetic shape with two packages per node (so that split = 1 can run
// too); every other one on a synthetic shape with NUMA nodes, so that the
// NUMA-aware allreduce splits its ranks into groups (from 5 ranks on).
// Calls an algorithm declares it cannot run (why_unusable: capabilities,
// limits, rank bounds, can_use) are skipped and counted, with their
// reasons, in the summary (`cct_tests "[agree]" -s` prints it): `mpi` runs
// inside MPI programs only; multinode needs a node holding two ranks, so
// not 2 ranks, and its split = 2 three levels inside a node, more ranks
// than 8. About 5 s on 2 cores.
//
// Not checked here: reduce_scatter(_block), scan and exscan give each rank
// its own piece of the result, computed by one rank alone, so there is no
// cross-rank agreement to check (the docs say what order they combine in);
// reduce gives its result to the root alone.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "support/harness.hpp"
#include "support/shared_array.hpp"

namespace {

constexpr double kTimeoutS = 120;
constexpr int kMinRanks = 2;
constexpr int kMaxRanks = 8;
// One element; an odd count that leaves blocks of different sizes on most
// rank counts; and over 64 KiB of doubles, so that the pipelined and
// chunked algorithms (numa, sliced: 32 and 64 KiB chunks by default) cut
// the vector into several pieces.
constexpr std::size_t kCounts[] = {1, 37, 8195};
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};
// Where the algorithms run (see the header).
constexpr const char* kNumaShape = "pack:2 numa:2 core:2";
constexpr const char* kNodeShape = "pack:2 core:2 pu:1";
constexpr std::size_t kReasonLength = 200;

// One call of a launch; every rank builds the same list.
struct Call {
  cct_datatype dtype;
  cct_op op;
  std::size_t count;
  bool in_place;
  std::size_t offset;  // of its result in a rank's share of the results
  std::size_t bytes() const { return count * cct::sdk::dtype_size(dtype); }
};

// What a rank reports per call.
enum Outcome : int32_t { kNotReached = 0, kRan = 1, kSkipped = 2 };

std::vector<Call> calls_of(std::span<const std::size_t> counts, bool in_place_ok) {
  std::vector<Call> calls;
  std::size_t offset = 0;
  for (std::size_t c = 0; c < counts.size(); ++c)
    for (std::size_t d = 0; d < std::size(kTypes); ++d)
      for (std::size_t o = 0; o < std::size(kOps); ++o) {
        // Half the calls in place, where the algorithm takes that form:
        // each datatype x operator both ways over the counts.
        const bool in_place = in_place_ok && (c + d + o) % 2 == 1;
        calls.push_back({kTypes[d], kOps[o], counts[c], in_place, offset});
        offset += calls.back().bytes();
      }
  return calls;
}

std::size_t total_bytes(const std::vector<Call>& calls) {
  return calls.empty() ? 0 : calls.back().offset + calls.back().bytes();
}

// ------------------------------------------------------------ the inputs

// A value of either sign, |v| in [1, 2) * 2^e with e in [-lo, hi].
template <class T>
T spread(std::mt19937_64& rng, int lo, int hi) {
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-lo, hi);
  const double v = std::ldexp(mantissa(rng), exponent(rng));
  return static_cast<T>(rng() % 2 == 0 ? v : -v);
}

template <class T>
void fill_typed(T* v, std::size_t count, cct_op op, std::mt19937_64& rng) {
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (std::is_integral_v<T>) {
      v[i] = static_cast<T>(rng());
    } else if (op == CCT_PROD) {
      v[i] = spread<T>(rng, 6, 6);  // 8 factors stay within float's range
    } else if ((op == CCT_MIN || op == CCT_MAX) && i % 5 == 0) {
      v[i] = rng() % 2 == 0 ? T(0) : -T(0);  // every rank: a zero, of its own sign
    } else {
      v[i] = spread<T>(rng, 30, 30);  // sums: 60 binades, both signs
    }
  }
}

// Rank `rank`'s input of call `index`: its own seed per rank and call.
void fill_input(void* buf, const Call& call, int rank, std::size_t index) {
  std::seed_seq seed{0x5eedu, static_cast<unsigned>(rank), static_cast<unsigned>(index)};
  std::mt19937_64 rng(seed);
  switch (call.dtype) {
    case CCT_INT8: return fill_typed(static_cast<int8_t*>(buf), call.count, call.op, rng);
    case CCT_INT16: return fill_typed(static_cast<int16_t*>(buf), call.count, call.op, rng);
    case CCT_INT32: return fill_typed(static_cast<int32_t*>(buf), call.count, call.op, rng);
    case CCT_INT64: return fill_typed(static_cast<int64_t*>(buf), call.count, call.op, rng);
    case CCT_UINT8: return fill_typed(static_cast<uint8_t*>(buf), call.count, call.op, rng);
    case CCT_UINT16: return fill_typed(static_cast<uint16_t*>(buf), call.count, call.op, rng);
    case CCT_UINT32: return fill_typed(static_cast<uint32_t*>(buf), call.count, call.op, rng);
    case CCT_UINT64: return fill_typed(static_cast<uint64_t*>(buf), call.count, call.op, rng);
    case CCT_FLOAT: return fill_typed(static_cast<float*>(buf), call.count, call.op, rng);
    case CCT_DOUBLE: return fill_typed(static_cast<double*>(buf), call.count, call.op, rng);
    default: throw std::invalid_argument("unknown datatype");
  }
}

// Element i of a buffer of dtype, printed exactly (floating point in hex,
// so that -0 and the last bit show).
std::string element(const std::byte* buf, cct_datatype dtype, std::size_t i) {
  char text[64];
  auto get = [&]<class T>(T) {
    T v;
    std::memcpy(&v, buf + i * sizeof(T), sizeof(T));
    return v;
  };
  switch (dtype) {
    case CCT_FLOAT:
      std::snprintf(text, sizeof text, "%a", static_cast<double>(get(float{})));
      break;
    case CCT_DOUBLE: std::snprintf(text, sizeof text, "%a", get(double{})); break;
    case CCT_INT8: return std::to_string(get(int8_t{}));
    case CCT_INT16: return std::to_string(get(int16_t{}));
    case CCT_INT32: return std::to_string(get(int32_t{}));
    case CCT_INT64: return std::to_string(get(int64_t{}));
    case CCT_UINT8: return std::to_string(get(uint8_t{}));
    case CCT_UINT16: return std::to_string(get(uint16_t{}));
    case CCT_UINT32: return std::to_string(get(uint32_t{}));
    default: return std::to_string(get(uint64_t{}));
  }
  return text;
}

// Whether element i is a zero in both buffers (then of opposite signs,
// where the bytes differ).
bool signed_zeros(const std::byte* a, const std::byte* b, cct_datatype dtype, std::size_t i) {
  auto zero = [&]<class T>(const std::byte* buf, T) {
    T v;
    std::memcpy(&v, buf + i * sizeof(T), sizeof(T));
    return v == T(0);
  };
  if (dtype == CCT_FLOAT) return zero(a, float{}) && zero(b, float{});
  if (dtype == CCT_DOUBLE) return zero(a, double{}) && zero(b, double{});
  return false;
}

// ------------------------------------------------------------ a launch

struct Tally {
  int launches = 0;
  int ran = 0;
  int skipped = 0;
  std::map<std::string, int> reasons;          // skip reason -> calls
  std::map<std::string, std::set<int>> ranks;  // algorithm -> rank counts it ran on
  // Where ranks disagreed, by "algorithm(params): dtype op": the rank
  // counts and counts, and the first call in detail.
  struct Disagreement {
    std::set<int> ranks;
    std::set<std::size_t> counts;
    int calls = 0;
    std::string first;
  };
  std::map<std::string, Disagreement> disagreements;
  int disagreeing_calls = 0;
};

std::string describe(const cct::AlgorithmEntry& alg, const std::vector<int64_t>& params) {
  std::string s = std::string(cct::collective_name(alg.desc->collective)) + "/" + alg.desc->name;
  for (uint32_t i = 0; i < alg.desc->nparams; ++i)
    s += std::string(i == 0 ? "(" : " ") + alg.desc->params[i].name + "=" +
         std::to_string(params[i]) + (i + 1 == alg.desc->nparams ? ")" : "");
  return s;
}

// On a rank: every call of `calls` that the algorithm accepts, through one
// plan, its output copied to results; status and reasons say what happened.
void run_calls(cct::Communicator& comm, const cct::AlgorithmEntry& alg,
               const std::vector<int64_t>& params, const std::vector<Call>& calls,
               const cct::test::SharedArray<std::byte>& results,
               const cct::test::SharedArray<int32_t>& status,
               const cct::test::SharedArray<std::array<char, kReasonLength>>& reasons) {
  const int rank = comm.rank();
  const std::size_t share = total_bytes(calls);
  std::unique_ptr<cct::Plan> plan;  // prepared at the first call it accepts (alike on every rank)
  std::vector<std::byte> input, output;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    const Call& call = calls[k];
    int32_t& outcome = status[static_cast<std::size_t>(rank) * calls.size() + k];
    const cct_coll_args probe =
        cct::make_call(CCT_ALLREDUCE, nullptr, nullptr, call.count, call.dtype, call.op, 0, 0);
    const std::string why = cct::why_unusable(alg, comm, probe, params);
    if (!why.empty()) {
      outcome = kSkipped;
      if (rank == 0) std::snprintf(reasons[k].data(), kReasonLength, "%s", why.c_str());
      continue;
    }
    if (!plan) plan = std::make_unique<cct::Plan>(alg, comm, params);
    input.resize(call.bytes());
    output.resize(call.bytes());
    fill_input(call.in_place ? output.data() : input.data(), call, rank, k);
    const cct_coll_args args =
        cct::make_call(CCT_ALLREDUCE, call.in_place ? CCT_IN_PLACE : input.data(), output.data(),
                       call.count, call.dtype, call.op, 0, static_cast<uint32_t>(k + 1));
    plan->run(args);
    std::memcpy(&results[static_cast<std::size_t>(rank) * share + call.offset], output.data(),
                call.bytes());
    outcome = kRan;
  }
}

// Runs `calls` of alg with params on n ranks and adds what happened to tally.
void launch(const cct::AlgorithmEntry& alg, const std::vector<int64_t>& params, int n,
            const std::vector<Call>& calls, Tally& tally) {
  const bool needs_levels = (alg.desc->limits & CCT_LIMIT_NEEDS_LEVELS) != 0;
  const int nodes = n >= 6 ? 3 : 2;
  const std::string where =
      describe(alg, params) + " on " + std::to_string(n) + " ranks" +
      (needs_levels ? " over " + std::to_string(nodes) + " virtual nodes of \"" + kNodeShape + "\""
                    : std::string(" of \"") + kNumaShape + "\"");
  INFO(where);
  const std::size_t share = total_bytes(calls);
  const cct::test::SharedArray<std::byte> results(static_cast<std::size_t>(n) * share);
  const cct::test::SharedArray<int32_t> status(static_cast<std::size_t>(n) * calls.size());
  const cct::test::SharedArray<std::array<char, kReasonLength>> reasons(calls.size());
  auto body = [&](cct::Communicator& comm) {
    run_calls(comm, alg, params, calls, results, status, reasons);
  };
  const std::string failed =
      needs_levels ? cct::test::on_virtual_nodes(n, nodes, cct::Topology::synthetic(kNodeShape),
                                                 body, kTimeoutS)
                   : cct::test::on_ranks(n, cct::Topology::synthetic(kNumaShape), body, kTimeoutS);
  REQUIRE(failed == "");
  ++tally.launches;
  // Every rank ran or skipped each call alike.
  std::string uneven;
  for (std::size_t k = 0; k < calls.size(); ++k)
    for (int r = 0; r < n; ++r)
      if (status[static_cast<std::size_t>(r) * calls.size() + k] != status[k] ||
          status[k] == kNotReached)
        uneven += " call " + std::to_string(k) + " rank " + std::to_string(r);
  REQUIRE(uneven == "");
  bool ran_any = false;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    const Call& call = calls[k];
    const int32_t outcome = status[k];
    if (outcome == kSkipped) {
      ++tally.skipped;
      ++tally.reasons[std::string(alg.desc->name) + ": " + reasons[k].data()];
      continue;
    }
    ++tally.ran;
    ran_any = true;
    const std::byte* first = &results[call.offset];
    for (int r = 1; r < n; ++r) {
      const std::byte* mine = &results[static_cast<std::size_t>(r) * share + call.offset];
      if (std::memcmp(first, mine, call.bytes()) == 0) continue;
      const std::size_t elem = cct::sdk::dtype_size(call.dtype);
      std::size_t differ = 0, zeros = 0, at = call.count;
      for (std::size_t i = 0; i < call.count; ++i)
        if (std::memcmp(first + i * elem, mine + i * elem, elem) != 0) {
          ++differ;
          at = std::min(at, i);
          zeros += signed_zeros(first, mine, call.dtype, i);
        }
      const std::string key = describe(alg, params) + ": " + cct::datatype_name(call.dtype) + " " +
                              cct::op_name(call.op);
      Tally::Disagreement& found = tally.disagreements[key];
      found.ranks.insert(n);
      found.counts.insert(call.count);
      ++found.calls;
      if (found.first.empty())
        found.first = where + ", count " + std::to_string(call.count) +
                      (call.in_place ? " in place" : "") + ": rank " + std::to_string(r) +
                      " differs from rank 0 in " + std::to_string(differ) + " elements (" +
                      std::to_string(zeros) + " of them +0 against -0), first [" +
                      std::to_string(at) + "] " + element(mine, call.dtype, at) + " vs " +
                      element(first, call.dtype, at);
      ++tally.disagreeing_calls;
      break;  // one rank per call is enough to name it
    }
  }
  if (ran_any) tally.ranks[alg.desc->name].insert(n);
}

}  // namespace

TEST_CASE("allreduce: every rank gets the same bits", "[reductions][agree]") {
  std::vector<const cct::AlgorithmEntry*> algorithms;
  for (const cct::AlgorithmEntry& alg : cct::test::registry().algorithms())
    if (alg.desc->collective == CCT_ALLREDUCE) algorithms.push_back(&alg);
  REQUIRE(!algorithms.empty());

  Tally tally;
  for (const cct::AlgorithmEntry* alg : algorithms) {
    const bool in_place_ok = (alg->desc->limits & CCT_LIMIT_IN_PLACE) != 0;
    const std::vector<int64_t> defaults = alg->default_params();
    for (int n = kMinRanks; n <= kMaxRanks; ++n)
      launch(*alg, defaults, n, calls_of(kCounts, in_place_ok), tally);
    // Each other candidate of each parameter once (the others at their
    // defaults), on rank counts that take turns.
    int turn = 0;
    for (uint32_t p = 0; p < alg->desc->nparams; ++p) {
      const cct_param_desc& param = alg->desc->params[p];
      for (uint32_t i = 0; i < param.ncandidates; ++i) {
        if (param.candidates[i] == defaults[p]) continue;
        std::vector<int64_t> values = defaults;
        values[p] = param.candidates[i];
        const int n = kMaxRanks - turn++ % (kMaxRanks - kMinRanks);  // 8, 7, .., 3, 8, ..
        launch(*alg, values, n, calls_of(kCounts, in_place_ok), tally);
      }
    }
  }

  // The built-in default allreduce runs on any communicator, count,
  // datatype and operator: it must have run at every rank count.
  const char* fallback = cct::collective_info(CCT_ALLREDUCE).default_algorithm;
  std::set<int> every;
  for (int n = kMinRanks; n <= kMaxRanks; ++n) every.insert(n);
  CHECK(tally.ranks[fallback] == every);

  std::string summary = std::to_string(algorithms.size()) + " allreduce algorithms, " +
                        std::to_string(tally.launches) + " launches, " + std::to_string(tally.ran) +
                        " calls compared, " + std::to_string(tally.skipped) + " skipped";
  for (const auto& [name, ns] : tally.ranks) {
    summary += "\n  ran ";
    summary += name;
    summary += " on";
    for (int n : ns) {
      summary += ' ';
      summary += std::to_string(n);
    }
  }
  for (const auto& [why, calls] : tally.reasons) {
    summary += "\n  skipped ";
    summary += std::to_string(calls) + " calls: " + why;
  }
  SUCCEED(summary);
  INFO(summary);
  std::string disagreements;
  for (const auto& [key, found] : tally.disagreements) {
    disagreements += "\n  ";
    disagreements += key + " on";
    for (int n : found.ranks) disagreements += ' ' + std::to_string(n);
    disagreements += " ranks, counts";
    for (std::size_t count : found.counts) disagreements += ' ' + std::to_string(count);
    disagreements += " (" + std::to_string(found.calls) + " calls); first: " + found.first;
  }
  INFO(std::to_string(tally.disagreeing_calls) + " calls where ranks disagree:" + disagreements);
  CHECK(tally.disagreements.empty());
}
