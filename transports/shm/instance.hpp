// One open shm transport: the segment, the p2p engine and the regions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cct/abi/transport.h"
#include "layout.hpp"
#include "p2p.hpp"
#include "regions.hpp"
#include "segment.hpp"
#include "wait.hpp"

namespace cct::shm {

// The operation tables (plugin.cpp).
extern const cct_p2p_ops kP2pOps;
extern const cct_shm_ops kShmOps;

class Instance {
 public:
  // Collective over boot's ranks. Throws sdk::TransportError; when one rank
  // fails, every rank throws, and nothing is left in /dev/shm.
  explicit Instance(const cct_bootstrap& boot);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  static Instance& of(cct_transport_instance* self) { return *static_cast<Instance*>(self->state); }
  cct_transport_instance* c_instance() { return &c_; }
  P2p& p2p() { return *p2p_; }
  Regions& regions() { return *regions_; }
  const WaitPolicy& waits() const { return waits_; }
  // Why a wait on a shared flag gave up: the peers not waiting (stall.hpp).
  std::string stalled_on_flag() const;

 private:
  struct Hello;
  struct Ready;

  std::vector<Hello> exchange_hello(const cct_bootstrap& boot, Unlinker& unlinker);
  void create_segment(const cct_bootstrap& boot, Unlinker& unlinker, Hello& mine);
  std::vector<Ready> exchange_ready(const cct_bootstrap& boot, const std::vector<Hello>& hellos);
  void map_segment(const std::string& name);
  void configure(const std::vector<Hello>& hellos, const std::vector<Ready>& readies,
                 double timeout_s);

  int rank_;
  int size_;
  Layout layout_;
  std::size_t threshold_ = 0;
  WaitPolicy waits_;
  std::vector<pid_t> pids_;  // per rank
  uint64_t probe_value_;     // read by the neighbour's CMA probe
  Mapping segment_;
  std::unique_ptr<P2p> p2p_;
  std::unique_ptr<Regions> regions_;
  cct_transport_instance c_{};
};

}  // namespace cct::shm
