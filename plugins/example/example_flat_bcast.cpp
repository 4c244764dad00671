// Example plugin: the simplest broadcast, written against the C++ SDK.
//
// Copy this file to start a new algorithm library. The root sends the whole
// buffer to every other rank in turn: O(size) steps at the root, so it loses
// to a tree beyond a few ranks, but with one message per rank and no
// forwarding it can win for small communicators and large messages on a
// transport that copies once (CMA). The tuner will tell.
#include <array>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace {

constexpr int64_t kBatchCandidates[] = {1, 4, 16};

class ExampleFlatBcast {
 public:
  static constexpr cct::sdk::Info info{
      .name = "example_flat",
      .doc = "example plugin: the root sends to every rank, `batch` sends in flight",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
      .limits = 0,
  };
  static constexpr std::array<cct_param_desc, 1> params{{{
      .name = "batch",
      .doc = "sends the root keeps in flight",
      .type = CCT_PARAM_INT,
      .default_value = 4,
      .candidates = kBatchCandidates,
      .ncandidates = 3,
  }}};

  static void check(const cct::sdk::Comm&, const cct_coll_args&, std::span<const int64_t> p) {
    if (p[0] < 1) throw cct::sdk::Unsupported("batch must be at least 1");
  }

  // Optional: the cost shape of a call (cct/sdk/cost.hpp), from which the
  // tuner predicts communicator sizes it did not measure. Count along the
  // critical path of one call, here the root's sends: the sends of one
  // batch are in flight together, so they pay one latency (one message),
  // but their bytes leave the root one after another (all of them count).
  // A flat algorithm puts everything at the outermost span (flat_cost).
  // Also state bisection_bytes (.cross): the bytes that cross between
  // ranks [0, p/2) and [p/2, p), summed over every rank and step (not the
  // critical path), counted with the root at rank 0 as the tuner times it.
  // Here the root (in the lower half) sends the buffer to each of the
  // p - p/2 ranks of the upper half: (p - p/2) * n (none for p = 1, with
  // no one to send to); its sends inside its own half cross nothing.
  // comm holds the shape only: never call its p2p functions here.
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> p) {
    check(comm, a, p);
    const int64_t peers = comm.size() - 1;
    const auto batches = static_cast<double>((peers + p[0] - 1) / p[0]);
    return cct::sdk::flat_cost(comm, batches, cct::sdk::bytes_of(a, a.count * peers))
        .cross(cct::sdk::upper_half(comm.size()) * cct::sdk::bytes_of(a, a.count));
  }

  // prepare: everything a call needs is allocated here, once.
  ExampleFlatBcast(const cct::sdk::Comm& comm, std::span<const int64_t> p)
      : comm_(comm), batch_(static_cast<int>(p[0])), requests_(batch_) {}

  void run(const cct_coll_args& a) {
    const std::size_t bytes = a.count * cct::sdk::dtype_size(a.dtype);
    if (comm_.rank() != a.root) return comm_.recv(a.recvbuf, bytes, a.root, a.tag);
    // Post up to `batch` sends, wait for them, go on with the next batch.
    int posted = 0;
    for (int peer = 0; peer < comm_.size(); ++peer) {
      if (peer == a.root) continue;
      comm_.isend(a.recvbuf, bytes, peer, a.tag, requests_[posted++]);
      if (posted == batch_) {
        comm_.waitall(requests_.data(), posted);
        posted = 0;
      }
    }
    comm_.waitall(requests_.data(), posted);
  }

 private:
  cct::sdk::Comm comm_;
  int batch_;
  std::vector<cct_request> requests_;
};

}  // namespace

CCT_SDK_EXPORT_ALGORITHMS(ExampleFlatBcast)
