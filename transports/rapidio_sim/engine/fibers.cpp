#include "rapidio_sim/engine/fibers.hpp"

#include <boost/context/detail/exception.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <exception>
#include <memory>
#include <utility>

#include "rapidio_sim/engine/engine.hpp"

namespace cct::rio {
namespace {

// Algorithm code keeps small frames; 256 KiB with a guard page catches a
// runaway recursion instead of corrupting a neighbour's stack.
constexpr std::size_t kStackBytes = 256 * 1024;

// Boost.Context's protected stack that says where it lies (Slot::stack)
// and is clean for the sanitizer when freed (sanitizer_stacks.hpp).
class RecordedStack {
 public:
  explicit RecordedStack(StackRange* where) : where_(where) {}
  boost::context::stack_context allocate() {
    boost::context::stack_context sc = stack_.allocate();
    *where_ = range(sc);
    return sc;
  }
  void deallocate(boost::context::stack_context& sc) noexcept {
    forget_stack(range(sc));
    stack_.deallocate(sc);
  }

 private:
  static StackRange range(const boost::context::stack_context& sc) {
    return {static_cast<const char*>(sc.sp) - sc.size, sc.size};
  }
  boost::context::protected_fixedsize_stack stack_{kStackBytes};
  StackRange* where_;
};

}  // namespace

void Fibers::create(int n, std::function<void(int)> body,
                    std::function<void(int, const std::string&)> on_finish) {
  body_ = std::move(body);
  on_finish_ = std::move(on_finish);
  unwinding_ = false;
  fibers_.clear();
  fibers_.resize(n);
  for (int r = 0; r < n; ++r) {
    fibers_[r].self = boost::context::fiber(
        std::allocator_arg, RecordedStack(&fibers_[r].stack),
        [this, r](boost::context::fiber&& caller) { return entry(r, std::move(caller)); });
  }
}

boost::context::fiber Fibers::entry(int rank, boost::context::fiber&& caller) {
  scheduler_stack_ = after_switch(nullptr);
  fibers_[rank].caller = std::move(caller);
  run(rank);
  before_switch(nullptr, scheduler_stack_);  // this stack is left for good
  return std::move(fibers_[rank].caller);
}

// Exceptions must not cross the fiber boundary: everything a body throws is
// caught here and reported as that rank's failure.
void Fibers::run(int rank) {
  std::string error;
  bool unwound = false;
  try {
    body_(rank);
  } catch (const Deadlock&) {
    unwound = true;
  } catch (const boost::context::detail::forced_unwind&) {
    throw;  // the fiber is being destroyed: Boost.Context unwinds it
  } catch (const std::exception& e) {
    error = e.what();
    if (error.empty()) error = "exception with an empty message";
  } catch (...) {
    error = "unknown exception";
  }
  fibers_[rank].finished = true;
  if (!unwound) on_finish_(rank, error);
}

void Fibers::resume(int rank) {
  Slot& slot = fibers_[rank];
  if (slot.finished) return;
  slot.blocked = false;
  running_ = rank;
  void* fake = nullptr;
  before_switch(&fake, slot.stack);
  slot.self = std::move(slot.self).resume();
  after_switch(fake);
  running_ = -1;
}

void Fibers::block() {
  Slot& slot = fibers_[running_];
  slot.blocked = true;
  void* fake = nullptr;
  before_switch(&fake, scheduler_stack_);
  slot.caller = std::move(slot.caller).resume();
  after_switch(fake);
  if (unwinding_) throw Deadlock("deadlock: no rank can progress (see the job's report)");
}

void Fibers::unwind_all() {
  unwinding_ = true;
  for (int r = 0; r < size(); ++r) {
    // A body that swallows the Deadlock and waits again is unwound again.
    while (!fibers_[r].finished) resume(r);
  }
  fibers_.clear();
  unwinding_ = false;
}

}  // namespace cct::rio
