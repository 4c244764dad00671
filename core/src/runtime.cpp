// The runtime's dispatch: choose, prepare once, run, count.
#include "cct/runtime.hpp"

#include <unistd.h>

#include <bit>
#include <cstring>
#include <sstream>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/sdk/datatype.hpp"
#include "cct/simulate.hpp"
#include "cct/units.hpp"

namespace cct {
namespace {

// Used where no profile rule applies: each runs on any communicator size,
// count, root, datatype and op, so a call always has an algorithm.

// One write per line, so that the lines of ranks sharing a terminal or a
// pipe do not interleave.
void log_line(const std::string& line) {
  if (::write(STDERR_FILENO, line.data(), line.size()) < 0) return;  // nowhere left to say it
}

bool is_in_place(const cct_coll_args& a) {
  return a.sendbuf == CCT_IN_PLACE || a.recvbuf == CCT_IN_PLACE;
}

cct_coll_args make_args(cct_collective c, const void* send, void* recv, std::size_t count,
                        cct_datatype dtype, cct_op op, int root) {
  return cct_coll_args{
      sizeof(cct_coll_args), CCT_ABI_VERSION, c, send, recv, count, dtype, op, root, 0};
}

}  // namespace

const char* default_algorithm(cct_collective c) {
  static const char* const defaults[CCT_COLLECTIVE_COUNT] = {
      "dissemination",       // barrier
      "binomial",            // bcast
      "binomial",            // gather
      "binomial",            // scatter
      "binomial",            // reduce
      "recursive_doubling",  // allreduce
      "ring",                // allgather
      "pairwise",            // alltoall
  };
  return defaults[c];
}

Runtime::Runtime(const Registry& registry, std::shared_ptr<Communicator> comm, Options options,
                 Selector selector)
    : registry_(registry),
      comm_(std::move(comm)),
      options_(options),
      selector_(std::move(selector)),
      by_selection_(selector_.selections(), nullptr) {
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) {
    const auto coll = static_cast<cct_collective>(c);
    const AlgorithmEntry* entry = registry_.find_algorithm(coll, default_algorithm(coll));
    if (entry == nullptr)
      throw Error(std::string("the built-in default ") + collective_name(coll) + "/" +
                      default_algorithm(coll) +
                      " is not registered: is its plugin on CCT_PLUGIN_PATH?",
                  CCT_ERR_UNSUPPORTED);
    defaults_[c] = &add_choice(entry, entry->default_params());
  }
}

// Plans are collective to destroy; every rank destroys them in the same
// order because every rank made the same choices.
Runtime::~Runtime() = default;

Choice& Runtime::add_choice(const AlgorithmEntry* algorithm, std::vector<int64_t> params) {
  auto choice = std::make_unique<Choice>();
  choice->algorithm = algorithm;
  choice->params = std::move(params);
  choices_.push_back(std::move(choice));
  return *choices_.back();
}

Choice& Runtime::default_choice(cct_collective c) {
  return *defaults_[c];
}

// Only what is equal on every rank decides, so that all ranks agree.
bool Runtime::ask_usable(const Choice& choice, const cct_coll_args& args) const {
  const cct_algorithm_desc& d = *choice.algorithm->desc;
  const cct_comm* comm = comm_->raw();
  const int n = comm->size;
  if ((comm_->capabilities() & d.required_caps) != d.required_caps) return false;
  if (n < d.min_ranks || (d.max_ranks > 0 && n > d.max_ranks)) return false;
  if ((d.limits & CCT_LIMIT_POW2_ONLY) && !std::has_single_bit(static_cast<unsigned>(n)))
    return false;
  if ((d.limits & CCT_LIMIT_NEEDS_LEVELS) && comm->nlevels == 0) return false;
  cct_error why;
  return choice.algorithm->can_use(comm, &args, choice.params.data(), &why) == CCT_OK;
}

bool Runtime::usable(Choice& choice, const cct_coll_args& args) const {
  Choice::Verdict& v = choice.last;
  if (v.count != args.count || v.dtype != args.dtype || v.op != args.op || v.root != args.root)
    v = {args.count, args.dtype, args.op, args.root, ask_usable(choice, args)};
  return v.usable;
}

// Rules that name the same algorithm and parameters share one choice, so
// one plan serves them all.
Choice& Runtime::choice_of(const Selection& s) {
  Choice*& cached = by_selection_[s.index];
  if (cached != nullptr) return *cached;
  for (auto& c : choices_)
    if (c->algorithm == s.algorithm && c->params == s.params) return *(cached = c.get());
  return *(cached = &add_choice(s.algorithm, s.params));
}

Choice& Runtime::select(const cct_coll_args& args) {
  Selected& last = selected_[args.collective];
  const bool same = last.count == args.count && last.dtype == args.dtype && last.op == args.op &&
                    last.root == args.root;
  if (same && options_.log != Log::kDebug) return *last.choice;  // debug logs every call
  last = {args.count, args.dtype, args.op, args.root, &select_afresh(args)};
  return *last.choice;
}

bool Runtime::keeps_library(cct_collective c, std::size_t count, cct_datatype dtype, cct_op op,
                            int root) {
  const Choice& choice = select(make_args(c, nullptr, nullptr, count, dtype, op, root));
  return (choice.algorithm->desc->required_caps & CCT_CAP_LIBRARY) != 0;
}

// First match of the profile (or CCT_FORCE) that can run this call, else
// the built-in default.
Choice& Runtime::select_afresh(const cct_coll_args& args) {
  const std::size_t bytes = message_bytes(args.collective, args.count, args.dtype);
  if (const Selection* s = selector_.select(args.collective, bytes)) {
    Choice& choice = choice_of(*s);
    if (usable(choice, args)) return noted(choice, args, s->forced ? "CCT_FORCE" : "profile");
    if (options_.log != Log::kOff) {
      std::ostringstream line;
      line << "cct: " << collective_name(args.collective) << " " << bytes << " B: rule "
           << choice.algorithm->desc->name << " cannot run here ("
           << why_unusable(*choice.algorithm, *comm_, args, choice.params)
           << "), using the default\n";
      log_line(line.str());
    }
  }
  return noted(default_choice(args.collective), args, "built-in default");
}

Choice& Runtime::noted(Choice& choice, const cct_coll_args& args, const char* origin) {
  const bool once = options_.log == Log::kInfo && !choice.logged && comm_->rank() == 0;
  if (once || options_.log == Log::kDebug) {
    std::ostringstream line;
    line << "cct: rank " << comm_->rank() << ": " << collective_name(args.collective) << " "
         << message_bytes(args.collective, args.count, args.dtype) << " B -> "
         << format_choice(*choice.algorithm->desc, choice.params) << " (" << origin << ")\n";
    log_line(line.str());
  }
  choice.logged = true;
  return choice;
}

// An algorithm without in-place support gets an out-of-place call: the
// input is copied to runtime-owned scratch (grown once, reused after).
cct_coll_args Runtime::out_of_place(const cct_coll_args& args, const Choice& choice) {
  if (!is_in_place(args) || (choice.algorithm->desc->limits & CCT_LIMIT_IN_PLACE)) return args;
  const std::size_t block = args.count * sdk::dtype_size(args.dtype);
  const std::size_t n = comm_->size();
  cct_coll_args out = args;
  auto scratch = [&](std::size_t bytes) {
    if (in_place_copy_.size() < bytes) in_place_copy_.resize(bytes);
    return in_place_copy_.data();
  };
  auto* recv = static_cast<unsigned char*>(args.recvbuf);
  switch (args.collective) {
    case CCT_SCATTER:  // the root's block stays where it is in sendbuf
      out.recvbuf = scratch(block);
      break;
    case CCT_GATHER:
    case CCT_ALLGATHER:
      out.sendbuf = std::memcpy(scratch(block), recv + comm_->rank() * block, block);
      break;
    case CCT_ALLTOALL: out.sendbuf = std::memcpy(scratch(n * block), recv, n * block); break;
    default:  // reduce, allreduce: the input is in recvbuf
      out.sendbuf = std::memcpy(scratch(block), recv, block);
      break;
  }
  return out;
}

void Runtime::run(cct_coll_args args) {
  if (!timed_out_.empty())
    throw Error(timed_out_ + "; the communicator cannot be used after that", CCT_ERR_TIMEOUT);
  Choice& choice = select(args);
  args = out_of_place(args, choice);
  args.tag = next_tag_++;
  try {
    if (!choice.plan)
      choice.plan = std::make_unique<Plan>(*choice.algorithm, *comm_, choice.params);
    run_choice(choice, args);
  } catch (const Error& e) {
    if (e.status() != CCT_ERR_TIMEOUT) throw;
    timed_out_ = timed_out(args, e.what());
    throw Error(timed_out_, CCT_ERR_TIMEOUT);
  }
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
  choice.bytes += message_bytes(args.collective, args.count, args.dtype);
}

// What a rank says when a call gave up: the call, the communicator, the
// deadline, then the algorithm's and the transport's reason (which names
// the ranks it waited for).
std::string Runtime::timed_out(const cct_coll_args& args, const std::string& why) const {
  std::ostringstream text;
  text << "rank " << rank() << ": " << collective_name(args.collective) << " of "
       << message_bytes(args.collective, args.count, args.dtype) << " B on " << options_.label
       << " timed out (CCT_TIMEOUT=" << options_.timeout_s << " s): " << why;
  return text.str();
}

void Runtime::barrier() {
  run(make_args(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0));
}

void Runtime::bcast(void* buf, std::size_t count, cct_datatype dtype, int root) {
  run(make_args(CCT_BCAST, nullptr, buf, count, dtype, CCT_SUM, root));
}

void Runtime::gather(const void* send, void* recv, std::size_t count, cct_datatype dtype,
                     int root) {
  run(make_args(CCT_GATHER, send, recv, count, dtype, CCT_SUM, root));
}

void Runtime::scatter(const void* send, void* recv, std::size_t count, cct_datatype dtype,
                      int root) {
  run(make_args(CCT_SCATTER, send, recv, count, dtype, CCT_SUM, root));
}

void Runtime::reduce(const void* send, void* recv, std::size_t count, cct_datatype dtype, cct_op op,
                     int root) {
  run(make_args(CCT_REDUCE, send, recv, count, dtype, op, root));
}

void Runtime::allreduce(const void* send, void* recv, std::size_t count, cct_datatype dtype,
                        cct_op op) {
  run(make_args(CCT_ALLREDUCE, send, recv, count, dtype, op, 0));
}

void Runtime::allgather(const void* send, void* recv, std::size_t count, cct_datatype dtype) {
  run(make_args(CCT_ALLGATHER, send, recv, count, dtype, CCT_SUM, 0));
}

void Runtime::alltoall(const void* send, void* recv, std::size_t count, cct_datatype dtype) {
  run(make_args(CCT_ALLTOALL, send, recv, count, dtype, CCT_SUM, 0));
}

}  // namespace cct
