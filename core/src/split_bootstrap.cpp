// A bootstrap of the ranks of a parent bootstrap that share a color.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "cct/bootstrap.hpp"

namespace cct {
namespace {

// Its operations are the parent's, so the whole parent takes part in each:
// the simulator's fibers need no other rendezvous than the one the parent
// already has, and groups split from one parent open their transports side
// by side.
class SplitBootstrap final : public Bootstrap {
 public:
  SplitBootstrap(Bootstrap& parent, int color) : parent_(parent), color_(color) {
    struct Entry {
      int color, node;
    };
    const Entry mine{color, parent.node()};
    std::vector<Entry> all(parent.size());
    parent.allgather(&mine, all.data(), sizeof(Entry));
    std::vector<int> parent_nodes;  // in order of their lowest member
    for (int r = 0; r < parent.size(); ++r) {
      if (all[r].color != color) continue;
      if (r == parent.rank()) rank_ = static_cast<int>(members_.size());
      members_.push_back(r);
      if (std::find(parent_nodes.begin(), parent_nodes.end(), all[r].node) == parent_nodes.end())
        parent_nodes.push_back(all[r].node);
    }
    node_ = static_cast<int>(std::find(parent_nodes.begin(), parent_nodes.end(), mine.node) -
                             parent_nodes.begin());
    nodes_ = static_cast<int>(parent_nodes.size());
  }
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
  int node() const override { return node_; }
  int nodes() const override { return nodes_; }
  std::string job_key() const override { return parent_.job_key() + "-c" + std::to_string(color_); }
  void allgather(const void* send, void* recv, std::size_t bytes) override {
    std::vector<std::byte> all(bytes * parent_.size());
    parent_.allgather(send, all.data(), bytes);
    for (std::size_t i = 0; i < members_.size(); ++i)
      std::copy_n(all.data() + members_[i] * bytes, bytes,
                  static_cast<std::byte*>(recv) + i * bytes);
  }
  void barrier() override { parent_.barrier(); }
  double timeout_s() const override { return parent_.timeout_s(); }

 private:
  Bootstrap& parent_;
  int color_;
  int rank_ = 0;
  int node_ = 0, nodes_ = 1;
  std::vector<int> members_;  // parent ranks, in order
};

}  // namespace

std::unique_ptr<Bootstrap> split_bootstrap(Bootstrap& parent, int color) {
  return std::make_unique<SplitBootstrap>(parent, color);
}

}  // namespace cct
