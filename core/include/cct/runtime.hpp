// ccautotune runtime: the object an application calls collectives on.
//
// It owns a communicator (an open transport + topology levels), chooses an
// algorithm for each call, prepares each chosen (algorithm, parameters) plan
// once, on first use, and runs it. The choice depends only on what every
// rank passes identically (collective, count, datatype, op, root), so all
// ranks always pick the same algorithm; in-place forms an algorithm does not
// support are turned into out-of-place calls locally, never into a
// different choice.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cct/abi/algorithm.h"
#include "cct/collectives.hpp"
#include "cct/communicator.hpp"
#include "cct/profile.hpp"
#include "cct/registry.hpp"

namespace cct {

class HostStaging;

// One (algorithm, parameter values) the runtime may run, with its plan
// (prepared on first use) and its counters.
struct Choice {
  const AlgorithmEntry* algorithm = nullptr;
  std::vector<int64_t> params;
  // Where its plan runs: the runtime's communicator, or the one over its
  // device transport (Runtime::use_device).
  const Communicator* comm = nullptr;
  std::unique_ptr<Plan> plan;
  uint64_t calls = 0;
  uint64_t bytes = 0;
  std::chrono::nanoseconds time{0};
  bool logged = false;          // CCT_LOG=info reports each choice once
  bool refusal_logged = false;  // and the first call it could not run
  // The last call usable() judged, and its verdict: applications repeat
  // the same call, and asking the plugin again would cost more than the
  // rest of the dispatch.
  struct Verdict {
    std::size_t count = 0;
    cct_datatype dtype = CCT_DATATYPE_COUNT;  // matches no call: nothing judged yet
    cct_op op = CCT_SUM;
    int32_t root = 0;
    bool usable = false;
  } last;
};

// One row of a CCT_STATS table. `communicators` (empty in a runtime's own
// table) names the communicators it sums up, `count` how many.
struct StatsRow {
  std::string communicators;
  int count = 1;
  cct_collective collective = CCT_BARRIER;
  std::string algorithm;  // with its parameters, as CCT_FORCE writes them
  uint64_t calls = 0;
  uint64_t bytes = 0;
  std::chrono::nanoseconds time{0};
};

// The algorithm column of a StatsRow that counts a collective's calls that
// agreed on their size first (Runtime::agreement): not an algorithm, the
// allreduce those calls paid before their own.
extern const char* const kAgreedFirst;

// The rows as a table, under their column titles (and a communicators
// column when the rows have one).
void print_stats_rows(std::ostream& out, const std::vector<StatsRow>& rows);

class Runtime {
 public:
  enum class Log { kOff, kInfo, kDebug };
  struct Options {
    bool stats = false;                      // count calls, bytes and time per algorithm
    Log log = Log::kOff;                     // info: each choice once (rank 0); debug: every call
    std::string label = "the communicator";  // in messages (Bootstrap::label)
    double timeout_s = 0;                    // CCT_TIMEOUT, for messages
    // Where no rule of the selector runs a call (no profile was found, the
    // profile has no rule for the collective, or none of the rule's
    // candidates can run it) and the communicator has the MPI library
    // (CCT_CAP_LIBRARY): the library's own call, as the program made it,
    // before the built-in default. A program under the MPI interposer then
    // runs as it would without it wherever the profile says nothing (do no
    // harm); CCT_PROFILE=none leaves this off, so that it runs the built-in
    // defaults (the baseline a profile is compared with).
    bool library_without_rule = false;
  };

  // Collective over the communicator's ranks. The selector holds the
  // profile's rules and CCT_FORCE's for this communicator (empty: built-in
  // defaults everywhere). The registry must outlive the runtime.
  Runtime(const Registry& registry, std::shared_ptr<const Communicator> comm, Options options,
          Selector selector = {});
  ~Runtime();

  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }

  void barrier();
  void bcast(void* buf, std::size_t count, cct_datatype dtype, int root);
  void gather(const void* send, void* recv, std::size_t count, cct_datatype dtype, int root);
  void scatter(const void* send, void* recv, std::size_t count, cct_datatype dtype, int root);
  void reduce(const void* send, void* recv, std::size_t count, cct_datatype dtype, cct_op op,
              int root);
  void allreduce(const void* send, void* recv, std::size_t count, cct_datatype dtype, cct_op op);
  void allgather(const void* send, void* recv, std::size_t count, cct_datatype dtype);
  void alltoall(const void* send, void* recv, std::size_t count, cct_datatype dtype);

  // Calls on device memory (Session::open_device). `on_device`: the same
  // ranks over a device transport (one granting CCT_CAP_DEVICE: cuda);
  // `rules`: the profile's and CCT_FORCE's for that transport. A call
  // passing device memory to an algorithm that takes host memory only then
  // runs that algorithm on host copies of its buffers, made through the
  // device transport (cct/host_staging.hpp), instead of failing. Before a
  // call whose size's device rule puts an algorithm on device memory
  // first, the ranks agree whether every one of them passes device memory
  // only (memory kinds are each rank's own: one small allreduce); where all
  // do, the device rules choose (an algorithm on device memory runs on
  // `on_device`, a host fallback on host copies), else the runtime's own
  // rules, as without them. Local.
  void use_device(std::shared_ptr<const Communicator> on_device, Selector rules = {});
  // Whether a decision about a call of c may be collective: some device
  // rule of c puts an algorithm on device memory first, so the ranks may
  // agree on memory kinds first. A caller must then remember nothing of a
  // decision (the MPI interposer's kept calls), and may hand the runtime
  // device memory as it is.
  bool agrees_on_memory(cct_collective c) const {
    return device_ && device_->rules.takes_device_memory(c);
  }
  // The device transport calls on device memory go through, or null.
  cct_transport_instance* device_transport() const {
    return device_ ? device_->comm->transport().raw() : nullptr;
  }

  // Runs one call described by args (tag is set by the runtime). Throws
  // cct::Error naming the collective and algorithm when it fails. After a
  // wait timed out (status CCT_ERR_TIMEOUT, naming the communicator and
  // the ranks that did not arrive) every later call fails the same way:
  // the ranks are no longer in step, so nothing could run correctly.
  void run(cct_coll_args args);
  // The same for a call like the last one of its collective (the same
  // counts, datatype, operator and root; other buffers), as a caller that
  // ran that one and changed only its buffers makes it (the MPI
  // interposer's calls run again): run as that one was, without checking
  // its arguments or choosing again; any other call as run() runs it.
  void run_again(cct_coll_args args);

  // The algorithm chosen for a call with these arguments (for logs and tests).
  // Local: where no rank knows the call's size alone (gatherv, scatterv,
  // alltoallv) it takes this rank's share as every rank's, which is exact
  // for equal blocks, instead of agreeing with the others.
  const Choice& choice_for(const cct_coll_args& args) { return select(args, false); }

  // Whether a call with these arguments goes to the MPI library's own
  // collective (the profile or CCT_FORCE keeps the library for it). The MPI
  // interposer then hands the program's call to the library as it was made,
  // so that where the library was kept the call costs only this decision.
  // Only what every rank passes equally is read (the buffers not at all).
  bool keeps_library(const cct_coll_args& args);
  // Whether the rules keep every size of c at `root` (0 for a collective
  // without one; root 0 and the others apart: Selector::library_everywhere)
  // on the MPI library's own collective, and the library is here: the MPI
  // interposer then hands a program's call over before converting
  // anything, where the library answers it as the runtime would
  // (calls.hpp).
  bool library_for_every_call(cct_collective c, int root) const {
    return library_always_[c][root != 0];
  }
  // A number no other runtime of this process has: callers that remember
  // something per runtime tell runtimes apart by it, where a freed
  // runtime's address may be reused by the next.
  uint64_t serial() const { return serial_; }
  // Whether every call's decision is logged (CCT_LOG=debug): a caller that
  // remembers decisions must then ask each time.
  bool logs_every_call() const { return options_.log == Log::kDebug; }

  // The CCT_STATS table: per collective and algorithm, calls, bytes, total
  // and mean time.
  void print_stats(std::ostream& out) const;
  // Its rows: one per collective and (algorithm, parameters) that ran.
  std::vector<StatsRow> stats_rows() const;
  const std::vector<std::unique_ptr<Choice>>& choices() const { return choices_; }

 private:
  // What the ranks agree on before they choose (agreement()).
  struct Agreement {
    std::size_t key = 0;      // the call's size key
    bool all_device = false;  // every rank passes device memory only
  };
  // use_device()'s communicator and rules, and the choices made from them.
  struct DeviceRoute {
    std::shared_ptr<const Communicator> comm;
    Selector rules;
    std::vector<Choice*> by_selection;  // Selection::index -> its choice
  };

  Choice& add_choice(const AlgorithmEntry* algorithm, std::vector<int64_t> params,
                     const Communicator& comm);
  Choice& default_choice(cct_collective c);
  // agree: the ranks agree on what no rank knows alone (collective).
  Choice& select(const cct_coll_args& args, bool agree = true);
  // Runs args on `chosen`, or on what select() chooses for it where null
  // (run() and run_again(), after their checks). Inline, and called in
  // runtime.cpp alone, so that neither pays a call for it.
  [[gnu::always_inline]] inline void run_on(Choice* chosen, cct_coll_args args);
  Choice& select_by_memory(const cct_coll_args& args, const CollectiveInfo& row, bool agree);
  Choice& select_afresh(const cct_coll_args& args, std::size_t bytes);
  Choice* device_choice(const cct_coll_args& args, std::size_t bytes);
  struct Placed;
  Placed placed(const Selection& s, bool device_rules);
  Choice* first_usable(std::span<const Selection> rule, const cct_coll_args& args,
                       std::size_t bytes, bool device_rules);
  void say_refused(Choice& choice, const cct_coll_args& args, std::size_t bytes, const Selection& s,
                   bool last, bool device_rules);
  Agreement agreement(const cct_coll_args& args, const CollectiveInfo& row);
  bool device_first(const cct_coll_args& args, std::size_t bytes) const;
  std::size_t local_key(const cct_coll_args& args, const CollectiveInfo& row) const;
  bool device_only(const cct_coll_args& args) const;
  Choice& choice_of(const Selection& selection, std::vector<Choice*>& cache,
                    const Communicator& comm);
  // Says what was chosen and from where (CCT_LOG), and of which bucket's
  // rules: the call's element type's, or its root's (Selection::bucket).
  Choice& noted(Choice& choice, const cct_coll_args& args, const char* origin,
                Selection::Bucket bucket = Selection::Bucket::kEveryCall);
  bool usable(Choice& choice, const cct_coll_args& args) const;
  bool ask_usable(const Choice& choice, const cct_coll_args& args) const;
  cct_coll_args out_of_place(const cct_coll_args& args, const Choice& choice);
  bool staged_on_host(const cct_coll_args& args, const Choice& choice) const;
  void run_choice(Choice& choice, const cct_coll_args& args);
  std::string timed_out(const cct_coll_args& args, const std::string& why) const;

  const Registry& registry_;
  std::shared_ptr<const Communicator> comm_;
  // use_device(), or null. Before the choices: their plans are destroyed
  // while the communicators they run on are open.
  std::unique_ptr<DeviceRoute> device_;
  Options options_;
  Selector selector_;
  std::vector<Choice*> by_selection_;  // Selection::index -> its choice
  std::vector<std::unique_ptr<Choice>> choices_;
  Choice* defaults_[CCT_COLLECTIVE_COUNT] = {};
  // The MPI library's own call, where Options::library_without_rule holds
  // and the communicator has it; else null.
  Choice* library_defaults_[CCT_COLLECTIVE_COUNT] = {};
  bool library_always_[CCT_COLLECTIVE_COUNT][2] = {};  // [c][root != 0]
  // Per collective, the calls that agreed on their size (or memory kinds)
  // first, one small allreduce each (agreement()): a row of CCT_STATS.
  uint64_t agreements_[CCT_COLLECTIVE_COUNT] = {};
  std::chrono::nanoseconds agreement_time_[CCT_COLLECTIVE_COUNT] = {};  // with options_.stats
  // Per collective, the last call's selection: programs repeat a call, and
  // the choice depends only on these arguments, so the rules are walked once.
  struct Selected {
    std::size_t count = 0;
    cct_datatype dtype = CCT_DATATYPE_COUNT;  // matches no call: nothing selected yet
    cct_op op = CCT_SUM;
    int32_t root = 0;
    Choice* choice = nullptr;
    bool holds(const cct_coll_args& args) const {
      return count == args.count && dtype == args.dtype && op == args.op && root == args.root;
    }
  } selected_[CCT_COLLECTIVE_COUNT];
  // The ranks' agreements (agreement()): the last one, whether the last
  // selection made it (rather than finding no need of one), and the one a
  // decision (keeps_library) hands to its run.
  std::unique_ptr<Plan> agree_;  // an allreduce, prepared on first use
  Agreement last_agreement_;
  bool agreed_now_ = false;
  struct Handed {
    cct_collective collective = CCT_COLLECTIVE_COUNT;  // none
    Agreement agreement;
  } handed_;
  std::vector<unsigned char> in_place_copy_;  // grows, never shrinks
  std::unique_ptr<HostStaging> staging_;
  uint32_t next_tag_ = 1;
  std::string timed_out_;  // the message of the call that timed out, or empty
  uint64_t serial_;
};

}  // namespace cct
