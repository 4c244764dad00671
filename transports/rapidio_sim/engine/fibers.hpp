// One fiber per simulated DSP (Boost.Context): the algorithm code runs
// unchanged and yields to the scheduler whenever it waits, which resumes it
// at the virtual time of the event that let it go on.
#pragma once

#include <boost/context/fiber.hpp>
#include <functional>
#include <string>
#include <vector>

#include "rapidio_sim/engine/sanitizer_stacks.hpp"

namespace cct::rio {

class Fibers {
 public:
  // Makes `n` suspended fibers; fiber r runs body(r) when first resumed.
  // on_finish(r, error) is called inside the fiber when body(r) returned
  // (error empty) or threw (error = its text); unwinding after a deadlock
  // calls nothing.
  void create(int n, std::function<void(int)> body,
              std::function<void(int, const std::string&)> on_finish);
  void resume(int rank);  // from the scheduler: runs `rank` until it blocks or ends
  void block();           // from a fiber: back to the scheduler until resumed
  int running() const { return running_; }
  bool finished(int rank) const { return fibers_[rank].finished; }
  bool blocked(int rank) const { return fibers_[rank].blocked; }
  int size() const { return static_cast<int>(fibers_.size()); }
  // Makes every unfinished fiber's block() throw so its stack unwinds, and
  // runs it to its end; then drops all fibers.
  void unwind_all();

 private:
  struct Slot {
    boost::context::fiber self;    // the suspended fiber
    boost::context::fiber caller;  // the scheduler, while the fiber runs
    bool finished = false;
    bool blocked = true;  // a new fiber waits for its first resume
    StackRange stack;     // the fiber's stack, for the sanitizer
  };
  boost::context::fiber entry(int rank, boost::context::fiber&& caller);
  void run(int rank);  // body(rank) to its end, on the fiber

  std::vector<Slot> fibers_;
  std::function<void(int)> body_;
  std::function<void(int, const std::string&)> on_finish_;
  StackRange scheduler_stack_;  // where resume() was called from
  int running_ = -1;
  bool unwinding_ = false;
};

}  // namespace cct::rio
