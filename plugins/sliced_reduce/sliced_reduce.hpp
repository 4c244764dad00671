// Sliced reduce and allreduce on shared memory: the reducing ranks each
// combine their own slice of the vector in one pass, straight from their
// private input and the other ranks' inputs in shared memory (issue 13:
// reductions at memory speed).
//
// A reduction that receives into a temporary and then combines passes over
// memory twice, and a tree or a leader leaves one core doing all the
// combining. Here, per chunk of the vector (slices.hpp for the layout):
//   1. hand in: each rank copies the slices of its chunk that other ranks
//      reduce into its own part of the region (the slice it reduces itself
//      stays where it is, in its private buffer);
//   2. reduce: each reducing rank combines its slice, its own input first,
//      then every other rank's in rank order, with the three-operand kernel
//      (so the first combination needs no copy), into its output, or, where
//      others need it, into its part's result slice;
//   3. collect: the ranks that receive the result (all of them for
//      allreduce, the root for reduce) copy the other reducers' slices.
// `reducers` says how many ranks reduce, counted from the root (rank 0 for
// allreduce). With every rank reducing, a rank copies (p-1)/p of the vector
// in, combines 1/p and copies (p-1)/p out, all ranks at once: the combining
// is spread over every core. With the root alone reducing (reduce), the
// others copy their whole chunk in and the root combines everything in one
// pass into its output: the least data crosses between cores (the vector
// once, where slicing moves it 1.5 times at two ranks), the most combining
// on one core. Which wins depends on the core count and how fast data moves
// between cores; the tuner measures both.
//
// Chunks pipeline: a rank hands in chunk c + 1 before it collects chunk c,
// so the reducers have time to finish their slices of c. Each slice is
// combined by one rank only, so every rank gets the very same bits
// (floating point included), the same in every call.
#pragma once

#include <array>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "sliced_reduce/slices.hpp"

namespace cct::plugins::sliced_reduce {

inline constexpr std::array<int64_t, 3> kChunkCandidates{16 << 10, 64 << 10, 256 << 10};
inline constexpr cct_param_desc kChunkParam{
    .name = "chunk",
    .doc = "bytes of the vector per pipeline step (4 steps in flight)",
    .type = CCT_PARAM_BYTES,
    .default_value = 64 << 10,
    .candidates = kChunkCandidates.data(),
    .ncandidates = kChunkCandidates.size(),
    .lo = 0,
    .hi = 0,
    .step = 0,
    .step_kind = CCT_STEP_ADD,
};

inline constexpr std::array<int64_t, 2> kReducersCandidates{0, 1};
inline constexpr cct_param_desc kReducersParam{
    .name = "reducers",
    .doc = "ranks that reduce a slice, counted from the root (0: every rank)",
    .type = CCT_PARAM_INT,
    .default_value = 0,
    .candidates = kReducersCandidates.data(),
    .ncandidates = kReducersCandidates.size(),
    .lo = 0,
    .hi = 0,
    .step = 0,
    .step_kind = CCT_STEP_ADD,
};

// What the reduce and the allreduce share.
class Sliced {
 public:
  static constexpr std::array<cct_param_desc, 2> params{{kChunkParam, kReducersParam}};
  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Sliced(const cct::sdk::Comm& comm, std::span<const int64_t> params);

 protected:
  static constexpr int kEveryone = -1;
  // One call; `root` is the rank that receives the result, or kEveryone.
  void run(const cct_coll_args& args, int root);

 private:
  struct Call;
  Part part(int rank) const { return Part(region_.peer(rank), chunk_, reducers_); }
  void hand_in(const Call& call, uint64_t i) const;
  void reduce_slice(const Call& call, uint64_t i) const;
  void collect(const Call& call, uint64_t i) const;

  cct::sdk::Comm comm_;
  std::size_t chunk_;
  int reducers_;
  cct::sdk::SharedRegion region_;
  uint64_t chunks_ = 0;  // chunks through the region so far
};

class SlicedReduce : public Sliced {
 public:
  static constexpr cct::sdk::Info info{
      .name = "sliced",
      .doc = "reducers combine slices straight from the inputs in shared memory; the root collects",
      .collective = CCT_REDUCE,
      .required_caps = CCT_CAP_SHM,
      .limits = CCT_LIMIT_IN_PLACE,
  };
  using Sliced::Sliced;
  void run(const cct_coll_args& args) { Sliced::run(args, args.root); }
};

class SlicedAllreduce : public Sliced {
 public:
  static constexpr cct::sdk::Info info{
      .name = "sliced",
      .doc = "reducers combine slices straight from the inputs in shared memory; all collect",
      .collective = CCT_ALLREDUCE,
      .required_caps = CCT_CAP_SHM,
      .limits = CCT_LIMIT_IN_PLACE,
  };
  using Sliced::Sliced;
  void run(const cct_coll_args& args) { Sliced::run(args, kEveryone); }
};

}  // namespace cct::plugins::sliced_reduce
