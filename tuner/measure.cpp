#include "tuner/measure.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <tuple>

#include "cct/collectives.hpp"
#include "cct/device_memory.hpp"
#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "cct/simulate.hpp"

namespace cct::tuner {
namespace {

// Distinct tags for the three roles, so that a transport that matches tags
// (MPI) reports a mismatch instead of pairing the wrong messages.
constexpr uint32_t kCallTag = 1;
constexpr uint32_t kAlignTag = 2;
constexpr uint32_t kTimesTag = 3;

// A plan of a baseline algorithm the measurement itself relies on.
std::unique_ptr<Plan> helper_plan(const Registry& registry, const Communicator& comm,
                                  cct_collective c, const char* name) {
  const AlgorithmEntry* alg = registry.find_algorithm(c, name);
  const std::string label = std::string(collective_name(c)) + "/" + name;
  if (alg == nullptr) throw Error("measurement needs " + label + ", which is not registered");
  const cct_coll_args sample = make_call(c, nullptr, nullptr, 0, CCT_DOUBLE, CCT_MAX, 0, 0);
  const std::vector<int64_t> params = alg->default_params();
  if (std::string why = why_unusable(*alg, comm, sample, params); !why.empty())
    throw Error("measurement needs " + label + ", which cannot run here: " + why,
                CCT_ERR_UNSUPPORTED);
  return std::make_unique<Plan>(*alg, comm, params);
}

// The library's own call of sample's collective as a plan, where the
// communicator has the library (an algorithm of that collective that needs
// CCT_CAP_LIBRARY can run sample here); else null.
std::unique_ptr<Plan> library_plan(const Registry& registry, const Communicator& comm,
                                   const cct_coll_args& sample) {
  const AlgorithmEntry* alg = registry.library_algorithm(sample.collective);
  if (alg == nullptr) return nullptr;
  const std::vector<int64_t> params = alg->default_params();
  if (!why_unusable(*alg, comm, sample, params).empty()) return nullptr;
  return std::make_unique<Plan>(*alg, comm, params);
}

// Times one call with the host's clock, or with a simulated platform's
// virtual clock when there is one.
class Stopwatch {
 public:
  explicit Stopwatch(const TransportInstance* virtual_clock)
      : virtual_clock_(virtual_clock),
        virtual_start_(virtual_clock ? *virtual_now(*virtual_clock) : 0),
        start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    if (virtual_clock_) return *virtual_now(*virtual_clock_) - virtual_start_;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  const TransportInstance* virtual_clock_;
  double virtual_start_;
  std::chrono::steady_clock::time_point start_;
};

// Linear interpolation between the closest ranks of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

cct_datatype measured_dtype(const Call& call) {
  if (call.dtype != CCT_DATATYPE_COUNT) return call.dtype;
  const bool reduction = collective_info(call.collective).reduction;
  const auto whole = static_cast<int64_t>(sdk::dtype_size(kReferenceType));
  return reduction && call.bytes % whole == 0 ? kReferenceType : CCT_UINT8;
}

std::string datatype_label(const Call& call) {
  return call.dtype == CCT_DATATYPE_COUNT ? "" : datatype_name(call.dtype);
}

bool has_patterns(const Call& call) {
  return collective_info(call.collective).vector();
}

std::vector<Call> each_pattern(const Call& call) {
  if (!has_patterns(call) || call.patterns.size() == 1) return {call};
  std::vector<Call> calls;
  for (CountPattern p : call.patterns)
    calls.push_back({call.collective, call.bytes, {p}, call.dtype, call.root});
  return calls;
}

std::string counts_label(const Call& call) {
  return has_patterns(call) ? count_patterns_label(call.patterns) : "";
}

MeasuredCalls::MeasuredCalls(const Call& call, int np, int rank, uint32_t tag) {
  const cct_datatype dtype = measured_dtype(call);
  const std::size_t count = static_cast<std::size_t>(call.bytes) / sdk::dtype_size(dtype);
  const cct_coll_args one = make_call(call.collective, nullptr, nullptr, count, dtype, CCT_SUM,
                                      call.root.value_or(0), tag);
  if (!has_patterns(call)) {
    args_.push_back(one);
    return;
  }
  blocks_.resize(call.patterns.size());
  for (std::size_t i = 0; i < call.patterns.size(); ++i) {
    cct_coll_args args = one;
    args_.push_back(blocks_[i].fill(args, np, rank, call.patterns[i]));
  }
}

PointResult summarize(std::vector<double> figures) {
  std::sort(figures.begin(), figures.end());
  return PointResult{.median_s = quantile(figures, 0.5),
                     .min_s = figures.front(),
                     .max_s = figures.back(),
                     .reps = static_cast<int>(figures.size())};
}

bool spread_is_tight(std::vector<double> figures, double tight) {
  std::sort(figures.begin(), figures.end());
  const double median = quantile(figures, 0.5);
  return median > 0 && (quantile(figures, 0.75) - quantile(figures, 0.25)) / median < tight;
}

Footprint footprint(const Call& call, int np) {
  Footprint most;
  const std::size_t element = sdk::dtype_size(measured_dtype(call));
  for (int rank = 0; rank < np; ++rank) {
    const MeasuredCalls calls(call, np, rank, 0);
    for (const cct_coll_args& args : calls.args()) {
      const Extent e = collective_info(call.collective).extent(args, rank, np);
      most = {std::max(most.send, e.send * element), std::max(most.recv, e.recv * element)};
    }
  }
  return most;
}

Measurer::Measurer(const Registry& registry, const Communicator& comm, std::span<const Call> calls,
                   MeasureOptions opts)
    : opts_(opts), np_(comm.size()), rank_(comm.rank()) {
  if (opts_.warmup < 0 || opts_.min_reps < 1 || opts_.max_reps < opts_.min_reps ||
      opts_.buffers < 1)
    throw Error("measure options: need warmup >= 0, 1 <= min_reps <= max_reps, buffers >= 1",
                CCT_ERR_INVALID_ARG);
  for (const Call& call : calls) {
    const Footprint f = footprint(call, np_);
    capacity_ = {std::max(capacity_.send, f.send), std::max(capacity_.recv, f.recv)};
  }
  if (comm.capabilities() & CCT_CAP_DEVICE) device_ = comm.transport().raw();
  if (virtual_now(comm.transport())) virtual_clock_ = &comm.transport();
  for (int i = 0; i < opts_.buffers; ++i)
    buffers_.push_back(virtual_clock_ != nullptr
                           ? simulated_set(i)
                           : Buffers{allocate(capacity_.send), allocate(capacity_.recv)});
  barrier_ = helper_plan(registry, comm, CCT_BARRIER, "dissemination");
  reduce_figures_ = helper_plan(registry, comm, CCT_ALLREDUCE, "recursive_doubling");
  library_barrier_ = library_plan(
      registry, comm, make_call(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0, 0));
  library_after_barrier_ = library_plan(
      registry, comm, make_call(CCT_ALLREDUCE, nullptr, nullptr, 1, CCT_UINT64, CCT_SUM, 0, 0));
}

// Every simulated rank is a fiber of this process, and only virtual time
// is measured, never what the calls leave in the buffers: so the ranks
// share one set of each size (a rank's send and receive buffers stay
// apart), and 256 DSPs take the memory of one rank's buffers, not 256
// times it. The set lives while a rank uses it.
Measurer::Buffers Measurer::simulated_set(int index) const {
  static std::mutex mutex;
  static std::map<std::tuple<int, std::size_t, std::size_t>, std::weak_ptr<Buffers>> shared;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(index, capacity_.send, capacity_.recv);
  std::shared_ptr<Buffers> set = shared[key].lock();
  if (!set) {
    set = std::make_shared<Buffers>(Buffers{allocate(capacity_.send), allocate(capacity_.recv)});
    shared[key] = set;
  }
  // Buffers whose memory keeps the set alive.
  return Buffers{Memory(set, set->send.get()), Memory(set, set->recv.get())};
}

// Zeroed, and so touched: device memory through a copy from the host.
Measurer::Memory Measurer::allocate(std::size_t bytes) const {
  const std::size_t size = std::max<std::size_t>(bytes, 1);
  if (device_ == nullptr) return Memory(new std::byte[size](), std::default_delete<std::byte[]>());
  Memory memory = device_memory(device_, size, "measure: the buffers");
  const std::vector<std::byte> zeros(size);
  copy_and_wait(device_, memory.get(), zeros.data(), size, CCT_COPY_HOST_TO_DEVICE,
                "measure: clearing the device buffers");
  return memory;
}

void Measurer::run(Plan& plan, const cct_coll_args& args) {
  if (device_ == nullptr || plan.algorithm().takes_device_memory()) {
    plan.run(args);
    return;
  }
  plan.run(staging_.stage(args, rank_, np_, device_));
  staging_.unstage(device_);
}

PointResult Measurer::measure(Plan& plan, const Call& call) {
  return measure(plan, call, opts_);
}

void Measurer::expect_fits(const Call& call) const {
  const Footprint need = footprint(call, np_);
  if (call.bytes < 0 || need.send > capacity_.send || need.recv > capacity_.recv)
    throw Error(std::string("measure: ") + collective_name(call.collective) + " of " +
                    std::to_string(call.bytes) + " bytes is larger than the calls given",
                CCT_ERR_INVALID_ARG);
}

PointResult Measurer::measure(Plan& plan, const Call& call, const MeasureOptions& limits) {
  expect_fits(call);
  for (int i = 0, warmup = warmup_for(plan, limits); i < warmup; ++i) {
    if (running_) running_->start(0);
    const MeasuredCalls calls = args_for(call, next_rep_++);
    time_calls(plan, calls);
  }
  std::vector<double> figures;
  run_rounds(plan, call, limits, figures);
  const PointResult result = summarize(std::move(figures));
  note_figure(plan, result);
  return result;
}

namespace {

std::tuple<int, std::string, std::vector<int64_t>> candidate_of(const Plan& plan) {
  return {plan.algorithm().desc->collective, plan.algorithm().desc->name, plan.params()};
}

}  // namespace

int Measurer::warmup_for(const Plan& plan, const MeasureOptions& limits) const {
  const auto it = last_figure_.find(candidate_of(plan));
  const bool slow = it != last_figure_.end() && slow_call(it->second, limits);
  return slow ? std::min(limits.warmup, 1) : limits.warmup;
}

void Measurer::note_figure(const Plan& plan, const PointResult& result) {
  last_figure_[candidate_of(plan)] = result.median_s;
}

std::vector<PointResult> Measurer::measure_together(std::span<Plan* const> plans,
                                                    std::span<const Call> calls,
                                                    const MeasureOptions& limits) {
  for (const Call& call : calls) expect_fits(call);
  const std::size_t k = plans.size();
  const auto note = [&](std::size_t j) {
    if (running_) running_->start(j);
  };
  std::vector<int> warmups;
  for (const Plan* plan : plans) warmups.push_back(warmup_for(*plan, limits));
  for (int i = 0; i < limits.warmup; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      if (i >= warmups[j]) continue;
      note(j);
      time_calls(*plans[j], args_for(calls[j], next_rep_++));
    }
  std::vector<std::vector<double>> figures(k);
  const auto more = [&] {
    int round = 0;
    for (const std::vector<double>& f : figures) round = std::max(round, next_round(f, limits));
    return round;
  };
  // The distinct calls (one, or one per element type), each plan's among
  // them: a repetition prepares each once, between timed calls.
  std::vector<Call> distinct;
  std::vector<std::size_t> call_of(k);
  for (std::size_t j = 0; j < k; ++j) {
    const auto at = std::ranges::find(distinct, calls[j]);
    call_of[j] = static_cast<std::size_t>(at - distinct.begin());
    if (at == distinct.end()) distinct.push_back(calls[j]);
  }
  std::vector<MeasuredCalls> made;  // each distinct call's, on one buffer set per repetition
  made.reserve(distinct.size());
  // Where the calls differ, each rotation of the order runs forwards, then
  // backwards in the next repetition.
  const bool both_ways = distinct.size() > 1;
  std::size_t turn = 0;
  for (int round = first_round(limits); round > 0; round = more()) {
    std::vector<double> mine(k * round);  // candidate j's times at [j * round, (j + 1) * round)
    for (int rep = 0; rep < round; ++rep) {
      made.clear();
      const int buffers = next_rep_++;
      for (const Call& call : distinct) made.push_back(args_for(call, buffers));
      const std::size_t start = both_ways ? turn / 2 : static_cast<std::size_t>(rep);
      const bool backwards = both_ways && turn++ % 2 == 1;
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t j = (backwards ? start + k - 1 - i : start + i) % k;
        note(j);
        mine[j * round + rep] = time_calls(*plans[j], made[call_of[j]]);
      }
    }
    const std::vector<double> maxima = rank_max(mine);
    for (std::size_t j = 0; j < k; ++j)
      figures[j].insert(figures[j].end(), maxima.begin() + j * round,
                        maxima.begin() + (j + 1) * round);
  }
  std::vector<PointResult> results;
  for (std::vector<double>& f : figures) results.push_back(summarize(std::move(f)));
  for (std::size_t j = 0; j < k; ++j) note_figure(*plans[j], results[j]);
  return results;
}

MeasuredCalls Measurer::args_for(const Call& call, int rep) {
  Buffers& b = buffers_[rep % buffers_.size()];
  MeasuredCalls calls(call, np_, rank_, kCallTag);
  const cct_memory_kind kind = device_ ? CCT_MEMORY_DEVICE : CCT_MEMORY_HOST;
  for (cct_coll_args& args : calls.args()) {
    args.sendbuf = b.send.get();
    args.recvbuf = b.recv.get();
    args.sendmem = args.recvmem = kind;
  }
  return calls;
}

double Measurer::time_calls(Plan& plan, const MeasuredCalls& calls) {
  double seconds = 0;
  for (const cct_coll_args& args : calls.args()) {
    align();
    const Stopwatch watch(virtual_clock_);
    run(plan, args);
    seconds += watch.seconds();
  }
  return seconds;
}

void Measurer::run_rounds(Plan& plan, const Call& call, const MeasureOptions& limits,
                          std::vector<double>& figures) {
  for (int round = first_round(limits); round > 0; round = next_round(figures, limits)) {
    std::vector<double> mine(round);
    for (double& seconds : mine) {
      if (running_) running_->start(0);
      const MeasuredCalls calls = args_for(call, next_rep_++);
      seconds = time_calls(plan, calls);
    }
    const std::vector<double> maxima = rank_max(mine);
    figures.insert(figures.end(), maxima.begin(), maxima.end());
  }
}

bool slow_call(double figure_s, const MeasureOptions& limits) {
  return figure_s * limits.min_reps > limits.budget_s;
}

int first_round(const MeasureOptions& limits) {
  return std::min({kFirstRound, limits.min_reps, limits.max_reps});
}

int next_round(const std::vector<double>& figures, const MeasureOptions& limits) {
  const int done = static_cast<int>(figures.size());
  const double spent = std::accumulate(figures.begin(), figures.end(), 0.0);
  if (done >= limits.max_reps || spent >= limits.budget_s) return 0;
  if (done >= limits.min_reps && spread_is_tight(figures, limits.tight)) return 0;
  const double median = summarize(figures).median_s;
  const double affordable = median > 0 ? (limits.budget_s - spent) / median : limits.min_reps;
  const int wanted = done < limits.min_reps ? limits.min_reps - done : limits.min_reps;
  const int round = static_cast<int>(std::min<double>(wanted, std::max(1.0, affordable)));
  return std::min(round, limits.max_reps - done);
}

// The figures' exchange waits, on a simulated platform, until the last
// timed call is over on every rank: its packets would otherwise slow the
// ranks still finishing that call.
std::vector<double> Measurer::rank_max(const std::vector<double>& mine) {
  settle();
  std::vector<double> out(mine.size());
  reduce_figures_->run(make_call(CCT_ALLREDUCE, mine.data(), out.data(), mine.size(), CCT_DOUBLE,
                                 CCT_MAX, 0, kTimesTag));
  return out;
}

std::vector<double> Measurer::rank_mean(const std::vector<double>& mine) {
  settle();
  std::vector<double> out(mine.size());
  reduce_figures_->run(make_call(CCT_ALLREDUCE, mine.data(), out.data(), mine.size(), CCT_DOUBLE,
                                 CCT_SUM, 0, kTimesTag));
  for (double& sum : out) sum /= np_;
  return out;
}

std::vector<PointResult> Measurer::measure_as_programs(std::span<const CallRunner> runners,
                                                       const Call& call,
                                                       std::span<const double> expected_s,
                                                       const ProgramStyle& style) {
  expect_fits(call);
  const MeasuredCalls calls = args_for(call, 0);  // a program's loop reuses its buffers
  const std::size_t k = runners.size();
  std::vector<int> per_block(k);
  for (std::size_t j = 0; j < k; ++j) {
    const double fits = style.block_s / std::max(expected_s[j], 1e-9);
    per_block[j] = static_cast<int>(std::clamp<double>(fits, style.fewest_calls, style.most_calls));
  }
  for (std::size_t j = 0; j < k; ++j) {
    if (running_) running_->start(j);
    time_block(runners[j], calls, style.warmup);
  }
  std::vector<std::vector<double>> figures(k);
  for (int round = 0; round < style.rounds; ++round) {
    std::vector<double> mine(k);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t j = (i + static_cast<std::size_t>(round)) % k;
      if (running_) running_->start(j);
      mine[j] = time_block(runners[j], calls, per_block[j]);
    }
    const std::vector<double> means = rank_mean(mine);
    for (std::size_t j = 0; j < k; ++j) figures[j].push_back(means[j]);
  }
  std::vector<PointResult> results;
  for (std::size_t j = 0; j < k; ++j) {
    results.push_back(summarize(std::move(figures[j])));
    results.back().reps = style.rounds * per_block[j];  // the calls timed
  }
  return results;
}

double Measurer::time_block(const CallRunner& runner, const MeasuredCalls& calls, int count) {
  Plan& barrier = library_barrier_ ? *library_barrier_ : *barrier_;
  const cct_coll_args between =
      make_call(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0, kAlignTag);
  if (!settle()) barrier.run(between);
  double seconds = 0;
  uint64_t one = 1, sum = 0;
  const cct_coll_args after =
      make_call(CCT_ALLREDUCE, &one, &sum, 1, CCT_UINT64, CCT_SUM, 0, kAlignTag);
  for (int n = 0; n < count; ++n)
    for (const cct_coll_args& args : calls.args()) {
      const Stopwatch watch(virtual_clock_);
      runner(args);
      // A barrier that releases the ranks unevenly makes the call after
      // it wait for the late ones: a barrier's figure holds a small call
      // of the library's after it, which pays for that (measured across
      // two emulated hosts: recursive_doubling, faster alone, made the
      // bcast after it 2-3x slower; here, a multilevel barrier picked
      // with the library's barrier after it made the library's own 2-256
      // B allreduce, allgather and alltoall after it 7-19% slower).
      if (args.collective == CCT_BARRIER) {
        if (library_after_barrier_) {
          library_after_barrier_->run(after);
          seconds += watch.seconds();
          barrier.run(between);
        } else {
          barrier.run(between);
          seconds += watch.seconds();
        }
        continue;
      }
      seconds += watch.seconds();
      barrier.run(between);
    }
  return count > 0 ? seconds / count : 0;
}

// On a simulated platform the ranks meet where nothing moves any more, at
// one virtual time: a figure then depends on its candidate alone, not on
// what was measured before it (its packets, the barrier's skew).
void Measurer::align() {
  if (!settle())
    barrier_->run(make_call(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0, kAlignTag));
}

bool Measurer::settle() {
  return virtual_clock_ != nullptr && quiesce(*virtual_clock_);
}

}  // namespace cct::tuner
