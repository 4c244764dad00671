// ccautotune tuner: timing of one point (a prepared plan, one call shape).
//
// What a figure means (docs/design.md, "Timing method"): after warm-up runs,
// every repetition re-aligns the ranks with a barrier, then each rank times
// its own call with std::chrono::steady_clock (on a simulated platform, the
// transport's virtual clock); the figure of a repetition is
// the maximum over ranks (the collective is done when its last rank is), and
// the point is the median of the figures, with min and max kept. A vector
// collective measured in several count patterns makes one call of each per
// repetition, each after its own alignment; a rank's time is their sum.
//
// Alignment uses the barrier/dissemination plan from the registry rather
// than a counter in the transport's shm table: it runs on every transport
// that grants p2p (shm, and later MPI and the RapidIO simulator, where shm
// is not granted across nodes), so a figure means the same thing on every
// transport. Every rank leaves it after the same ceil(log2 p) rounds, so
// ranks leave at most about one message latency apart; a shm counter would
// release them a cache-line transfer apart, a little tighter, but only
// where shm is granted.
//
// Per-rank times travel once per round of repetitions, not per repetition,
// through an allreduce/recursive_doubling plan with op MAX on doubles (bit
// identical on every rank): every rank then holds the same figures and takes
// the same stop decision, and the bootstrap socket is never used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cct/collectives.hpp"
#include "cct/communicator.hpp"
#include "cct/count_pattern.hpp"
#include "cct/host_staging.hpp"
#include "cct/registry.hpp"

namespace cct::tuner {

// One call shape. `bytes` is the message size as the collective's row
// defines it (cct/collectives.hpp: the profile's size key).
struct Call {
  cct_collective collective = CCT_BARRIER;
  int64_t bytes = 0;
  // The patterns a vector collective is measured in (cct/count_pattern.hpp),
  // all of one size key: a repetition runs one call of each, and its figure
  // is their sum. The other collectives ignore it.
  std::vector<CountPattern> patterns{CountPattern::kEqual};
  // A reduction's element type where it is measured in one of its own
  // (the finalists in each type of --datatypes, search.hpp); left at
  // CCT_DATATYPE_COUNT, the type measured_dtype chooses by the size.
  cct_datatype dtype = CCT_DATATYPE_COUNT;
  // A rooted collective's root where it is measured at one of its own
  // (the finalists at root 0 and at the last rank, search.hpp, step 7);
  // left empty, root 0.
  std::optional<int> root;
  bool operator==(const Call&) const = default;
};

// Whether the call's collective has per-rank counts, so that its patterns
// apply.
bool has_patterns(const Call& call);
// The call in each of its patterns alone, in their order: the call itself
// for a collective without patterns, or with one.
std::vector<Call> each_pattern(const Call& call);
// The results row's counts column: "equal+skewed" for a vector
// collective's call, empty for the others.
std::string counts_label(const Call& call);

// The element type a call is measured with: its own (Call::dtype) where it
// has one, else for reductions int32 sums where the size allows it (what
// applications reduce; integer adds have no denormal slow paths whatever
// the buffers hold), uint8 otherwise, so every byte count is
// representable.
cct_datatype measured_dtype(const Call& call);
// That int32: what a reduction's sizes are measured in where they allow it,
// and what its other element types are weighed against (search.hpp, step 6).
inline constexpr cct_datatype kReferenceType = CCT_INT32;
// The results row's datatype column: the call's own type, empty without.
std::string datatype_label(const Call& call);

// The calls one repetition of `call` makes on rank `rank` of np, buffers
// left null: the call's root, the measured datatype, count from its bytes;
// one call per pattern for a vector collective, one call otherwise.
class MeasuredCalls {
 public:
  MeasuredCalls(const Call& call, int np, int rank, uint32_t tag);
  MeasuredCalls(const MeasuredCalls&) = delete;
  MeasuredCalls& operator=(const MeasuredCalls&) = delete;
  MeasuredCalls(MeasuredCalls&&) = default;  // the arrays' storage moves along
  MeasuredCalls& operator=(MeasuredCalls&&) = default;

  std::vector<cct_coll_args>& args() { return args_; }
  const std::vector<cct_coll_args>& args() const { return args_; }

 private:
  std::vector<PatternBlocks> blocks_;  // the arrays args_ point at
  std::vector<cct_coll_args> args_;
};

// Bytes a call reads from sendbuf and writes to recvbuf, on the rank that
// needs the most (the root of gather and scatter, the heavy rank of a
// skewed pattern), on np ranks, in the pattern that needs the most.
struct Footprint {
  std::size_t send = 0;
  std::size_t recv = 0;
};
Footprint footprint(const Call& call, int np);

struct MeasureOptions {
  // Untimed runs before the first repetition; one only for a candidate
  // whose last figure on this Measurer (a smaller size) was slow
  // (slow_call): five calls of seconds cost more than the point's budget.
  int warmup = 5;
  // Repetitions before the spread is first judged: a median of a handful
  // is noise for sub-microsecond calls, and more cost little.
  int min_reps = 31;
  int max_reps = 200;   // hard cap
  double tight = 0.05;  // stop once (p75 - p25) / median is below this
  // Stop once the figures so far add up to this (seconds); checked between
  // rounds, whose size is chosen so that a round overshoots little. The
  // first round is kFirstRound repetitions, so that a call of seconds (an
  // alltoall of megabytes on a hundred ranks) stops after it rather than
  // after min_reps of them.
  double budget_s = 1.0;
  int buffers = 1;  // > 1: rotate among this many buffer sets (cold caches)
};

// How a program-style measurement times a call (Measurer::
// measure_as_programs): in blocks of calls, as OSU and IMB do.
struct ProgramStyle {
  int rounds = 5;         // blocks per candidate, the candidates' alternated
  double block_s = 2e-3;  // what a block should take, from an earlier figure
  int fewest_calls = 20;  // per block, however slow the call
  int most_calls = 1000;  // per block, however fast
  int warmup = 10;        // untimed calls of each candidate first
};

// How a program-style measurement runs a candidate's call: its plan itself
// (the library's own call, which the interposer hands over as it was made)
// or a runtime that dispatches to it (what a program's call pays to reach
// an algorithm).
using CallRunner = std::function<void(const cct_coll_args&)>;

struct PointResult {
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  int reps = 0;
};

// Median, min and max of figures (not empty), with reps = figures.size().
PointResult summarize(std::vector<double> figures);

// True when (p75 - p25) / median < tight (figures not empty).
bool spread_is_tight(std::vector<double> figures, double tight);

// Whether a call of this figure is slow under limits: min_reps of it
// would spend more than the budget.
bool slow_call(double figure_s, const MeasureOptions& limits);

// The first round's repetitions: kFirstRound, or fewer where the limits
// allow fewer.
constexpr int kFirstRound = 3;
int first_round(const MeasureOptions& limits);

// The size of the next round of repetitions under limits, 0 to stop: once
// the budget is spent, at max_reps, or once min_reps were timed and their
// spread is tight. A round is at most min_reps long (the first ones fill up
// to min_reps) and no longer than the remaining budget allows at the
// median so far, so a slow point overshoots its budget by about one
// repetition.
int next_round(const std::vector<double>& figures, const MeasureOptions& limits);

// Measures points on one communicator. Buffers large enough for every call
// in `calls` (the largest footprint among them, not np * the largest size
// for every collective: a bcast-only run on many ranks stays small) are
// allocated once, touched, and reused by every point. On a device
// transport (CCT_CAP_DEVICE) they are device memory, as a GPU program's
// are, and a plan of an algorithm that takes host memory only (on the
// host transport under it) runs on host copies of them, the copies timed
// with it (cct/host_staging.hpp), as the runtime runs it. Collective:
// every rank constructs it and measures the same points in the same order.
//
// Which candidate a rank is running, for whoever must name it when the
// rank dies: calls counts the calls this rank started, candidate the index
// (in measure_together's plans) of the last one. Written by this rank
// only, read by another process after the job ended.
struct RunningCandidate {
  uint64_t calls = 0;
  int candidate = 0;
  int pid = 0;  // the rank's process

  void start(std::size_t index) {
    ++calls;
    candidate = static_cast<int>(index);
  }
};

class Measurer {
 public:
  Measurer(const Registry& registry, const Communicator& comm, std::span<const Call> calls,
           MeasureOptions opts);

  // Collective. Throws cct::Error when the plan fails or the call does not
  // fit the buffers. Every rank returns the same result.
  PointResult measure(Plan& plan, const Call& call);
  // Where buffer set `index` (< MeasureOptions::buffers) sends and receives
  // from: each rank's own, or on a simulated platform the set all ranks of
  // the process share.
  std::pair<const void*, const void*> buffer_set(int index) const {
    return {buffers_.at(index).send.get(), buffers_.at(index).recv.get()};
  }
  // The same with other repetition limits (warmup, reps, tight, budget; the
  // buffer count is the constructor's), e.g. for a cheap screening round.
  PointResult measure(Plan& plan, const Call& call, const MeasureOptions& limits);
  // Several candidates timed together, plans[j] on calls[j] (one call for
  // all, or one call in several element types or at two roots): every
  // repetition runs one call of each, each after its own alignment, in an
  // order that rotates, so that no candidate is timed only right after its
  // own calls (warm in a way a program's calls, with other work between
  // them, are not) or only in first place, and what drifts in the machine
  // meanwhile weighs on all alike. Where the calls differ, every other
  // repetition runs that order backwards, so that each call comes after
  // both its neighbours in turn: what came before matters (the ranks that
  // finished the last call last, its receivers, leave the alignment
  // first, so a bcast right after one at another root finds its root
  // ahead), and with [a@0, b@0, a@1, b@1] always in that order a came
  // after the other root and b after its own at both roots: two two_level
  // bcasts of 16 B, the same code at that size, 3.3x apart on 2 ranks.
  // Repetitions go on while any candidate's figures ask for more (limits
  // as above, each candidate's own).
  std::vector<PointResult> measure_together(std::span<Plan* const> plans,
                                            std::span<const Call> calls,
                                            const MeasureOptions& limits);
  // Candidates of one call timed the way an outside benchmark times a
  // program's calls, where the figures above (every call after the
  // runtime's own barrier, rotated among candidates on rotating buffers,
  // the maximum over ranks) can favour an algorithm over the library's
  // call by more than a program ever sees. Per block: the same call on
  // the same buffers `calls` times, each timed alone and followed by the
  // library's own barrier (the alignment barrier where there is no
  // library), as a program's loop around MPI_Bcast and MPI_Barrier; a
  // rank's figure is its mean over the block, the block's the average
  // over ranks. Blocks of the candidates alternate, their order rotating
  // each round. `expected_s` holds an earlier figure of each candidate,
  // which sets its calls per block. A result's reps counts the calls
  // timed (blocks times calls per block).
  std::vector<PointResult> measure_as_programs(std::span<const CallRunner> runners,
                                               const Call& call, std::span<const double> expected_s,
                                               const ProgramStyle& style);
  // From now on, notes in *slot (null: nowhere) each call it starts, with
  // the candidate (measure_together's index; 0 for a single plan), before
  // its alignment, outside the timed part.
  void note_running_in(RunningCandidate* slot) { running_ = slot; }

 private:
  // Host memory, or the device transport's (freed by its deleter).
  using Memory = std::shared_ptr<std::byte>;
  struct Buffers {
    Memory send;
    Memory recv;
  };
  Memory allocate(std::size_t bytes) const;
  // On a simulated platform: the set `index` that every rank of this
  // process shares (measure.cpp says why).
  Buffers simulated_set(int index) const;
  // Runs plan on args, staged where its algorithm takes host memory only
  // and the buffers are the device's.
  void run(Plan& plan, const cct_coll_args& args);

  void expect_fits(const Call& call) const;
  // The calls of one repetition, on the buffer set of `rep`.
  MeasuredCalls args_for(const Call& call, int rep);
  // One repetition: each call after its own alignment; the sum of their times.
  double time_calls(Plan& plan, const MeasuredCalls& calls);
  void run_rounds(Plan& plan, const Call& call, const MeasureOptions& limits,
                  std::vector<double>& figures);
  std::vector<double> rank_max(const std::vector<double>& mine);
  std::vector<double> rank_mean(const std::vector<double>& mine);
  void align();
  // On a simulated platform, waits (collectively) until nothing moves on
  // it, every rank then at one virtual time, and returns true; false
  // elsewhere, having done nothing.
  bool settle();
  // One block of measure_as_programs: this rank's mean time per call.
  double time_block(const CallRunner& runner, const MeasuredCalls& calls, int count);
  // The warm-up runs of plan under limits (MeasureOptions::warmup), and
  // noting its figure for the next time.
  int warmup_for(const Plan& plan, const MeasureOptions& limits) const;
  void note_figure(const Plan& plan, const PointResult& result);

  MeasureOptions opts_;
  int np_;
  int rank_;
  Footprint capacity_;
  // The device transport whose memory the buffers are, or null.
  cct_transport_instance* device_ = nullptr;
  std::vector<Buffers> buffers_;
  HostStaging staging_;
  std::unique_ptr<Plan> barrier_;
  // The barrier a program calls between its calls: the library's own
  // where the communicator has the library, else null (barrier_ then).
  std::unique_ptr<Plan> library_barrier_;
  // The small call timed after a barrier as programs call: the library's
  // 8-byte allreduce, where the communicator has the library, else null.
  std::unique_ptr<Plan> library_after_barrier_;
  std::unique_ptr<Plan> reduce_figures_;
  int next_rep_ = 0;  // rotates the buffer sets across points too
  // The last figure of each candidate (collective, algorithm, parameter
  // values), the same on every rank: names, not addresses, so that every
  // rank warms up alike.
  std::map<std::tuple<int, std::string, std::vector<int64_t>>, double> last_figure_;
  RunningCandidate* running_ = nullptr;
  // The transport's virtual clock on a simulated platform, else null.
  const TransportInstance* virtual_clock_ = nullptr;
};

}  // namespace cct::tuner
