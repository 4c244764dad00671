// The runtime's dispatch: choose, prepare once, run, count.
#include "cct/runtime.hpp"

#include <unistd.h>

#include <atomic>
#include <bit>
#include <cstring>
#include <sstream>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/host_staging.hpp"
#include "cct/profile.hpp"
#include "cct/sdk/datatype.hpp"
#include "cct/simulate.hpp"
#include "cct/units.hpp"

namespace cct {
namespace {

// One write per line, so that the lines of ranks sharing a terminal or a
// pipe do not interleave.
void log_line(const std::string& line) {
  if (::write(STDERR_FILENO, line.data(), line.size()) < 0) return;  // nowhere left to say it
}

bool passes_device_memory(const cct_coll_args& args) {
  return args.sendmem == CCT_MEMORY_DEVICE || args.recvmem == CCT_MEMORY_DEVICE;
}

// What the C API lets a careless caller pass, refused before anything is
// indexed by it. `arrays`: those of the row's arrays that must be there
// (deciding reads the counts only; running reads all).
void expect_valid(const cct_coll_args& args, int size, unsigned arrays) {
  const CollectiveInfo& row = collective_info(args.collective);
  const auto bad = [&](const std::string& what) {
    throw Error(std::string(row.name) + ": " + what, CCT_ERR_INVALID_ARG);
  };
  if (args.dtype < 0 || args.dtype >= CCT_DATATYPE_COUNT)
    bad("datatype " + std::to_string(args.dtype) + " is unknown");
  if (row.reduction && (args.op < 0 || args.op >= CCT_OP_COUNT))
    bad("operator " + std::to_string(args.op) + " is unknown");
  if ((arrays & kRecvCounts) && args.recvcounts == nullptr) bad("recvcounts is NULL");
  if ((arrays & kRecvDispls) && args.rdispls == nullptr) bad("rdispls is NULL");
  if ((arrays & kSendCounts) && args.sendcounts == nullptr) bad("sendcounts is NULL");
  if ((arrays & kSendDispls) && args.sdispls == nullptr) bad("sdispls is NULL");
  if (row.rooted && (args.root < 0 || args.root >= size))
    bad("root " + std::to_string(args.root) + " is outside 0.." + std::to_string(size - 1));
}

// Runtime::serial()'s source.
std::atomic<uint64_t> next_serial{1};

// The arrays of its row this rank passes: all of them, but where only the
// root has any (gatherv, scatterv). Deciding reads the counts of them only.
unsigned arrays_passed(const CollectiveInfo& row, const cct_coll_args& args, int rank) {
  return row.arrays_at_root && rank != args.root ? 0 : row.arrays;
}

}  // namespace

Runtime::Runtime(const Registry& registry, std::shared_ptr<const Communicator> comm,
                 Options options, Selector selector)
    : registry_(registry),
      comm_(std::move(comm)),
      options_(options),
      selector_(std::move(selector)),
      by_selection_(selector_.selections(), nullptr),
      serial_(next_serial.fetch_add(1, std::memory_order_relaxed)) {
  for (const CollectiveInfo& c : collectives()) {
    const AlgorithmEntry* entry = registry_.find_algorithm(c.id, c.default_algorithm);
    if (entry == nullptr)
      throw Error(std::string("the built-in default ") + c.name + "/" + c.default_algorithm +
                      " is not registered: is its plugin on CCT_PLUGIN_PATH?",
                  CCT_ERR_UNSUPPORTED);
    defaults_[c.id] = &add_choice(entry, entry->default_params(), *comm_);
    const bool library_here = (comm_->capabilities() & CCT_CAP_LIBRARY) != 0;
    const AlgorithmEntry* library = registry_.library_algorithm(c.id);
    if (library_here && options_.library_without_rule && library != nullptr)
      library_defaults_[c.id] = &add_choice(library, library->default_params(), *comm_);
    for (const int root : {0, 1})
      library_always_[c.id][root] =
          library_here &&
          selector_.library_everywhere(c.id, root, library_defaults_[c.id] != nullptr);
  }
}

// Plans are collective to destroy; every rank destroys them in the same
// order because every rank made the same choices.
Runtime::~Runtime() = default;

void Runtime::use_device(std::shared_ptr<const Communicator> on_device, Selector rules) {
  device_ = std::make_unique<DeviceRoute>(DeviceRoute{std::move(on_device), std::move(rules), {}});
  device_->by_selection.assign(device_->rules.selections(), nullptr);
  if (!staging_) staging_ = std::make_unique<HostStaging>();
  // A collective whose calls agree on memory kinds is never handed to the
  // library before its call is looked at: its device rules may take it.
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c)
    if (agrees_on_memory(static_cast<cct_collective>(c)))
      library_always_[c][0] = library_always_[c][1] = false;
}

// Device memory goes only to an algorithm that declares it takes it; the
// buffers' kind may differ between ranks, so it changes the choice only
// through the ranks' agreement (select_by_memory): where the choice takes
// host memory only, a rank passing device memory runs it on host copies,
// or, with no device transport to make them, fails alone, saying why.
// Asked of a call that passes device memory (run_on asks that first:
// most calls do not, and pay no call for it).
bool Runtime::staged_on_host(const cct_coll_args& args, const Choice& choice) const {
  const cct_algorithm_desc& d = *choice.algorithm->desc;
  if (choice.algorithm->takes_device_memory()) return false;
  if (!device_)
    throw Error(std::string(collective_name(args.collective)) + "/" + d.name +
                    " takes host memory only, this call passes device memory, and no device "
                    "transport is open to copy it through host memory",
                CCT_ERR_UNSUPPORTED);
  return true;
}

Choice& Runtime::add_choice(const AlgorithmEntry* algorithm, std::vector<int64_t> params,
                            const Communicator& comm) {
  auto choice = std::make_unique<Choice>();
  choice->algorithm = algorithm;
  choice->params = std::move(params);
  choice->comm = &comm;
  choices_.push_back(std::move(choice));
  return *choices_.back();
}

Choice& Runtime::default_choice(cct_collective c) {
  return *defaults_[c];
}

// Only what is equal on every rank decides, so that all ranks agree.
bool Runtime::ask_usable(const Choice& choice, const cct_coll_args& args) const {
  const cct_algorithm_desc& d = *choice.algorithm->desc;
  const cct_comm* comm = choice.comm->raw();
  const int n = comm->size;
  if ((choice.comm->capabilities() & d.required_caps) != d.required_caps) return false;
  if (n < d.min_ranks || (d.max_ranks > 0 && n > d.max_ranks)) return false;
  if ((d.limits & CCT_LIMIT_POW2_ONLY) && !std::has_single_bit(static_cast<unsigned>(n)))
    return false;
  if ((d.limits & CCT_LIMIT_NEEDS_LEVELS) && comm->nlevels == 0) return false;
  cct_error why;
  return choice.algorithm->can_use(comm, &args, choice.params.data(), &why) == CCT_OK;
}

// The vector collectives' arrays may decide too: their verdicts and
// selections are not cached.
bool Runtime::usable(Choice& choice, const cct_coll_args& args) const {
  if (collective_info(args.collective).vector()) return ask_usable(choice, args);
  Choice::Verdict& v = choice.last;
  if (v.count != args.count || v.dtype != args.dtype || v.op != args.op || v.root != args.root)
    v = {args.count, args.dtype, args.op, args.root, ask_usable(choice, args)};
  return v.usable;
}

// Rules that name the same algorithm and parameters on the same
// communicator share one choice, so one plan serves them all. `cache`:
// their selector's, by Selection::index.
Choice& Runtime::choice_of(const Selection& s, std::vector<Choice*>& cache,
                           const Communicator& comm) {
  Choice*& cached = cache[s.index];
  if (cached != nullptr) return *cached;
  for (auto& c : choices_)
    if (c->algorithm == s.algorithm && c->params == s.params && c->comm == &comm)
      return *(cached = c.get());
  return *(cached = &add_choice(s.algorithm, s.params, comm));
}

// The size key as this rank sees it: where no rank knows the size alone,
// its own share taken as every rank's (exact for equal blocks).
std::size_t Runtime::local_key(const cct_coll_args& args, const CollectiveInfo& row) const {
  if (row.key_parts == nullptr) return message_bytes(args, size());
  return row.message_bytes(args, size()) * size() / row.key_parts(size());
}

Choice& Runtime::select(const cct_coll_args& args, bool agree) {
  const CollectiveInfo& row = collective_info(args.collective);
  if (agrees_on_memory(args.collective)) return select_by_memory(args, row, agree);
  if (row.key_parts != nullptr && !agree) return select_afresh(args, local_key(args, row));
  if (row.key_parts != nullptr) return select_afresh(args, agreement(args, row).key);
  if (row.vector()) return select_afresh(args, message_bytes(args, size()));
  Selected& last = selected_[args.collective];
  if (last.holds(args) && options_.log != Log::kDebug) return *last.choice;  // debug logs each
  last = {args.count, args.dtype, args.op, args.root,
          &select_afresh(args, message_bytes(args, size()))};
  return *last.choice;
}

// Whether the device rule for `bytes` of the call's collective and type
// chooses first an algorithm that runs on device memory.
bool Runtime::device_first(const cct_coll_args& args, std::size_t bytes) const {
  const std::span<const Selection> rule =
      device_->rules.candidates(args.collective, bytes, args.dtype, args.root);
  return !rule.empty() && rule.front().algorithm->runs_on_device_memory();
}

// A call of a collective the device rules take: where every rank passes
// device memory only, the device rules choose (device_choice); else, or
// where none of their candidates can run it, the runtime's own rules.
Choice& Runtime::select_by_memory(const cct_coll_args& args, const CollectiveInfo& row,
                                  bool agree) {
  const Agreement agreed =
      agree ? agreement(args, row) : Agreement{local_key(args, row), device_only(args)};
  if (agreed.all_device && device_first(args, agreed.key))
    if (Choice* on_device = device_choice(args, agreed.key)) return *on_device;
  return select_afresh(args, agreed.key);
}

// Whether every buffer this rank's call reads or writes is in device
// memory. A rank that touches none counts as such: it never keeps the
// others from their device algorithm.
bool Runtime::device_only(const cct_coll_args& args) const {
  const Extent extent = collective_info(args.collective).extent(args, rank(), size());
  const auto on_device = [](std::size_t elements, const void* buf, cct_memory_kind kind) {
    return elements == 0 || buf == CCT_IN_PLACE || kind == CCT_MEMORY_DEVICE;
  };
  return on_device(extent.send, args.sendbuf, args.sendmem) &&
         on_device(extent.recv, args.recvbuf, args.recvmem);
}

// What the ranks agree on before they choose, with one small allreduce
// (the default allreduce's algorithm) where, and only where, a choice
// needs it: the size key of a call no rank knows alone (the sum of their
// shares), where the rules choose by size; and whether every rank passes
// device memory only, where the device rule for the call's size chooses
// an algorithm on device memory first (a call of another size costs
// nothing more: a host algorithm first changes too little beside the host
// rules, staged). A decision of keeps_library() hands its agreement to the
// run() that follows, so that a call agrees once.
Runtime::Agreement Runtime::agreement(const cct_coll_args& args, const CollectiveInfo& row) {
  const cct_collective c = args.collective;
  const bool kinds_matter = agrees_on_memory(c);
  const bool key_unknown =
      row.key_parts != nullptr && (kinds_matter || selector_.size_matters(c, args.root));
  const Agreement known{row.key_parts != nullptr ? 0 : message_bytes(args, size()), false};
  const bool ask_kinds = kinds_matter && (key_unknown || device_first(args, known.key));
  agreed_now_ = false;
  if (!key_unknown && !ask_kinds) return known;
  if (handed_.collective == c) {
    handed_.collective = CCT_COLLECTIVE_COUNT;
    return handed_.agreement;
  }
  const Choice& sum = *defaults_[CCT_ALLREDUCE];
  if (!agree_) agree_ = std::make_unique<Plan>(*sum.algorithm, *comm_, sum.params);
  uint64_t mine[2] = {key_unknown ? row.message_bytes(args, size()) : 0,
                      ask_kinds && !device_only(args) ? 1u : 0u};
  uint64_t all[2] = {0, 0};
  const auto start =
      options_.stats ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  agree_->run(make_call(CCT_ALLREDUCE, mine, all, 2, CCT_UINT64, CCT_SUM, 0, next_tag_++));
  ++agreements_[c];
  if (options_.stats) agreement_time_[c] += std::chrono::steady_clock::now() - start;
  last_agreement_ = {key_unknown ? all[0] / row.key_parts(size()) : known.key,
                     ask_kinds && all[1] == 0};
  agreed_now_ = true;
  return last_agreement_;
}

bool Runtime::keeps_library(const cct_coll_args& args) {
  const CollectiveInfo& row = collective_info(args.collective);
  expect_valid(args, size(), arrays_passed(row, args, rank()) & (kRecvCounts | kSendCounts));
  agreed_now_ = false;
  const Choice& choice = select(args);
  const bool kept = (choice.algorithm->desc->required_caps & CCT_CAP_LIBRARY) != 0;
  if (!kept && agreed_now_) handed_ = {args.collective, last_agreement_};
  return kept;
}

// The first candidate of the matching rule of the profile (or CCT_FORCE)
// that can run this call of `bytes` (the size key), else the MPI library's
// own call (Options::library_without_rule) where it can, else the built-in
// default.
Choice& Runtime::select_afresh(const cct_coll_args& args, std::size_t bytes) {
  const std::span<const Selection> rule =
      selector_.candidates(args.collective, bytes, args.dtype, args.root);
  if (Choice* choice = first_usable(rule, args, bytes, false)) return *choice;
  if (Choice* library = library_defaults_[args.collective]; library && usable(*library, args))
    return noted(*library, args,
                 rule.empty() ? "no rule: the MPI library's own call"
                              : "no candidate of its rule runs it: the MPI "
                                "library's own call");
  return noted(default_choice(args.collective), args, "built-in default");
}

// The same from the device rules: an algorithm that runs on device memory
// (AlgorithmEntry::runs_on_device_memory) on the device communicator, any
// other on the runtime's own, on host copies of the device buffers (the
// tuner measured it so: a host algorithm staged can beat every algorithm
// on device memory); null where none can run the call.
Choice* Runtime::device_choice(const cct_coll_args& args, std::size_t bytes) {
  return first_usable(device_->rules.candidates(args.collective, bytes, args.dtype, args.root),
                      args, bytes, true);
}

// Where a candidate of the runtime's rules or (device_rules) of its device
// rules runs, and what CCT_LOG calls it.
struct Runtime::Placed {
  const Communicator* comm;
  std::vector<Choice*>* cache;
  const char* origin;
};

Runtime::Placed Runtime::placed(const Selection& s, bool device_rules) {
  if (!device_rules)
    return {comm_.get(), &by_selection_,
            s.forced                    ? "CCT_FORCE"
            : s.fallback && s.predicted ? "profile, a fallback, predicted by the cost model"
            : s.fallback                ? "profile, a fallback"
            : s.predicted               ? "profile, predicted by the cost model"
                                        : "profile"};
  if (s.algorithm->runs_on_device_memory())
    return {device_->comm.get(), &device_->by_selection,
            s.forced ? "CCT_FORCE, on device memory" : "profile's device rules, on device memory"};
  return {comm_.get(), &device_->by_selection,
          s.forced ? "CCT_FORCE, on host copies of device memory"
                   : "profile's device rules, on host copies of device memory"};
}

Choice* Runtime::first_usable(std::span<const Selection> rule, const cct_coll_args& args,
                              std::size_t bytes, bool device_rules) {
  for (std::size_t i = 0; i < rule.size(); ++i) {
    const Selection& s = rule[i];
    const Placed where = placed(s, device_rules);
    Choice& choice = choice_of(s, *where.cache, *where.comm);
    if (usable(choice, args)) return &noted(choice, args, where.origin, s.bucket);
    say_refused(choice, args, bytes, s, i + 1 == rule.size(), device_rules);
  }
  return nullptr;
}

// info: once per candidate, on rank 0 (its first refusal); debug: each.
void Runtime::say_refused(Choice& choice, const cct_coll_args& args, std::size_t bytes,
                          const Selection& s, bool last, bool on_device) {
  const bool say = options_.log == Log::kDebug ||
                   (options_.log == Log::kInfo && !choice.refusal_logged && comm_->rank() == 0);
  if (!say) return;
  choice.refusal_logged = true;
  std::ostringstream line;
  line << "cct: " << collective_name(args.collective) << " " << bytes << " B: "
       << (on_device    ? "device rule "
           : s.fallback ? "fallback "
                        : "rule ")
       << choice.algorithm->desc->name << " cannot run here ("
       << why_unusable(*choice.algorithm, *choice.comm, args, choice.params) << "), "
       << (!last       ? "trying the rule's next candidate"
           : on_device ? "using the host rules"
                       : "using the default")
       << "\n";
  log_line(line.str());
}

Choice& Runtime::noted(Choice& choice, const cct_coll_args& args, const char* origin,
                       Selection::Bucket bucket) {
  const bool once = options_.log == Log::kInfo && !choice.logged && comm_->rank() == 0;
  if (once || options_.log == Log::kDebug) {
    std::ostringstream line;
    line << "cct: rank " << comm_->rank() << ": " << collective_name(args.collective) << " "
         << message_bytes(args, size()) << " B -> "
         << format_choice(*choice.algorithm->desc, choice.params) << " (" << origin;
    if (bucket == Selection::Bucket::kElementType)
      line << ", its rules for " << datatype_name(args.dtype);
    if (bucket == Selection::Bucket::kNonzeroRoots) line << ", its rules for " << kNonzeroRootsText;
    line << ")\n";
    log_line(line.str());
  }
  choice.logged = true;
  return choice;
}

// An algorithm without in-place support gets an out-of-place call: the
// input is copied to runtime-owned scratch (grown once, reused after), or,
// where the in-place form marks the receive side, the result the rank
// keeps where it is goes to scratch. Asked of a call in the in-place form
// (run_on asks that first, so that other calls copy nothing).
cct_coll_args Runtime::out_of_place(const cct_coll_args& args, const Choice& choice) {
  if (choice.algorithm->desc->limits & CCT_LIMIT_IN_PLACE) return args;
  const CollectiveInfo& row = collective_info(args.collective);
  const std::size_t element = sdk::dtype_size(args.dtype);
  auto scratch = [&](std::size_t bytes) {
    if (in_place_copy_.size() < bytes) in_place_copy_.resize(bytes);
    return in_place_copy_.data();
  };
  cct_coll_args out = args;
  if (row.in_place == InPlaceMark::kRecv) {
    out.recvbuf = scratch(row.extent(args, rank(), size()).recv * element);
    return out;
  }
  const Region input = row.in_place_input(args, rank(), size());
  const auto* recv = static_cast<const unsigned char*>(args.recvbuf);
  out.sendbuf = std::memcpy(scratch(input.count * element), recv + input.offset * element,
                            input.count * element);
  return out;
}

inline void Runtime::run_on(Choice* chosen, cct_coll_args args) {
  try {
    Choice& choice = chosen != nullptr ? *chosen : select(args);
    const bool staged = passes_device_memory(args) && staged_on_host(args, choice);
    if (staged) args = staging_->stage(args, rank(), size(), device_transport());
    if (is_in_place(args)) args = out_of_place(args, choice);
    args.tag = next_tag_++;
    if (!choice.plan)
      choice.plan = std::make_unique<Plan>(*choice.algorithm, *choice.comm, choice.params);
    run_choice(choice, args);
    if (staged) staging_->unstage(device_transport());
  } catch (const Error& e) {
    if (e.status() != CCT_ERR_TIMEOUT) throw;
    timed_out_ = timed_out(args, e.what());
    throw Error(timed_out_, CCT_ERR_TIMEOUT);
  }
}

void Runtime::run(cct_coll_args args) {
  if (!timed_out_.empty())
    throw Error(timed_out_ + "; the communicator cannot be used after that", CCT_ERR_TIMEOUT);
  const CollectiveInfo& row = collective_info(args.collective);
  expect_valid(args, size(), arrays_passed(row, args, rank()));
  run_on(nullptr, args);
}

// The selection a call like the last one of its collective had: the
// memo of select(), which holds a choice only for the collectives it
// memoizes (selected_). Device rules given since (use_device) make the
// ranks agree again: such a call goes to run().
void Runtime::run_again(cct_coll_args args) {
  const Selected& last = selected_[args.collective];
  if (last.choice == nullptr || !last.holds(args) || !last.choice->plan ||
      agrees_on_memory(args.collective) || options_.log == Log::kDebug || !timed_out_.empty())
    return run(args);
  run_on(last.choice, args);
}

void Runtime::run_choice(Choice& choice, const cct_coll_args& args) {
  if (!options_.stats) return choice.plan->run(args);
  if (const std::optional<double> virtual_start = virtual_now(comm_->transport())) {
    choice.plan->run(args);
    choice.time += std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(*virtual_now(comm_->transport()) - *virtual_start));
  } else {
    const auto start = std::chrono::steady_clock::now();
    choice.plan->run(args);
    choice.time += std::chrono::steady_clock::now() - start;
  }
  ++choice.calls;
  choice.bytes += message_bytes(args, size());
}

// What a rank says when a call gave up: the call, the communicator, the
// deadline, then the algorithm's and the transport's reason (which names
// the ranks it waited for).
std::string Runtime::timed_out(const cct_coll_args& args, const std::string& why) const {
  std::ostringstream text;
  text << "rank " << rank() << ": " << collective_name(args.collective) << " of "
       << message_bytes(args, size()) << " B on " << options_.label
       << " timed out (CCT_TIMEOUT=" << options_.timeout_s << " s): " << why;
  return text.str();
}

void Runtime::barrier() {
  run(make_call(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0));
}

void Runtime::bcast(void* buf, std::size_t count, cct_datatype dtype, int root) {
  run(make_call(CCT_BCAST, nullptr, buf, count, dtype, CCT_SUM, root));
}

void Runtime::gather(const void* send, void* recv, std::size_t count, cct_datatype dtype,
                     int root) {
  run(make_call(CCT_GATHER, send, recv, count, dtype, CCT_SUM, root));
}

void Runtime::scatter(const void* send, void* recv, std::size_t count, cct_datatype dtype,
                      int root) {
  run(make_call(CCT_SCATTER, send, recv, count, dtype, CCT_SUM, root));
}

void Runtime::reduce(const void* send, void* recv, std::size_t count, cct_datatype dtype, cct_op op,
                     int root) {
  run(make_call(CCT_REDUCE, send, recv, count, dtype, op, root));
}

void Runtime::allreduce(const void* send, void* recv, std::size_t count, cct_datatype dtype,
                        cct_op op) {
  run(make_call(CCT_ALLREDUCE, send, recv, count, dtype, op, 0));
}

void Runtime::allgather(const void* send, void* recv, std::size_t count, cct_datatype dtype) {
  run(make_call(CCT_ALLGATHER, send, recv, count, dtype, CCT_SUM, 0));
}

void Runtime::alltoall(const void* send, void* recv, std::size_t count, cct_datatype dtype) {
  run(make_call(CCT_ALLTOALL, send, recv, count, dtype, CCT_SUM, 0));
}

}  // namespace cct
