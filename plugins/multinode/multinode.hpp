// Multinode collectives: shared memory inside each group of ranks that
// share a node (or a part of one), p2p between the groups' leaders over the
// communicator's own transport (e.g. mpi).
//
// Why: on a communicator that spans nodes the communicator's transport is
// the network, and a flat algorithm sends over it whatever two ranks it
// pairs, also two ranks of the same node, and up to one message per rank
// across the node boundary. Split at the node level (split.hpp), only the
// leaders, one per node, cross the network: the inter-node phase costs what
// a flat algorithm costs on `nodes` ranks instead of on `size`, and moves
// one message (one vector, one block per group) per node where a flat one
// moves one per rank. Inside a node the ranks meet in shared memory (the
// shm transport the host binds per group, cct_comm.level_transport), where
// a message costs a cache-line handoff or a memcpy instead of a network
// latency. `split` > 0 gives each package (or cache) its own leader, which
// spreads the network work over more ranks, at the price of more messages.
//
// Each algorithm composes existing algorithm classes with their default
// parameters: `inner` picks the one(s) run over a group, `outer` the one
// run over the leaders (cct::sdk::GroupComm and LeadersComm); the tuner
// measures the combinations. A group of one rank runs no inner phase.
//
// Rooted calls (bcast, reduce) let the root act for its own group in the
// leaders' phase (LeadersComm::set_member): the root's data enters (or its
// result leaves) the inter-node phase directly, with no hop between the
// root and its group's leader, neither over the network nor through shared
// memory. The price is that every rank prepares the leaders' algorithm
// (any rank may be a root); those are p2p algorithms that prepare without
// communicating, so that costs a little memory only.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"
#include "multinode/split.hpp"
#include "reduce_scatter/rank_blocks.hpp"

namespace cct::plugins::multinode {

inline constexpr uint32_t kLimits = CCT_LIMIT_NEEDS_LEVELS;

// Barrier: a barrier inside each group, one among the leaders, and the
// group barrier again. Once a leader's first group barrier returns, its
// whole group arrived; once the leaders' barrier returns, every rank did;
// the second group barrier holds the members until their leader got
// there. This is how the multilevel barrier gains its node level: with
// inner = multilevel the cache, NUMA and package levels inside a node are
// its shared-memory tree, and the node level is the leaders' p2p barrier,
// which moves ceil(log2 nodes) rounds of one message per node over the
// network instead of ceil(log2 p) rounds of one per rank.
class Barrier {
 public:
  static constexpr sdk::Info info{
      .name = "multinode",
      .doc =
          "barrier per node in shared memory, p2p barrier among node leaders, node barrier again",
      .collective = CCT_BARRIER,
      .required_caps = CCT_CAP_P2P,
      .limits = kLimits};
  static constexpr std::array<int64_t, 4> kInner = iota<4>();
  static constexpr std::array<int64_t, 2> kOuter = iota<2>();
  static constexpr std::array<cct_param_desc, 3> params{{
      kSplitParam,
      choice("inner", "0 = multilevel, 1 = dual_queue, 2 = central_counter, 3 = dissemination",
             kInner),
      choice("outer", "0 = dissemination, 1 = recursive_doubling", kOuter),
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Barrier(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  Split split_;
  std::unique_ptr<Sub> inner_;                 // null when alone in the group
  std::unique_ptr<sdk::LeadersComm> leaders_;  // on the leaders only
  std::unique_ptr<Sub> outer_;
};

// Bcast: the root's data goes to the other groups' leaders first (outer,
// with the root acting for its group), then each group's acting rank
// broadcasts it in its group (inner). One copy of the buffer per node
// crosses the network instead of one per rank, and the node's ranks get it
// through shared memory (two_level streams it through a shared pipe that
// every member reads, instead of one p2p copy per member).
class Bcast {
 public:
  static constexpr sdk::Info info{
      .name = "multinode",
      .doc = "bcast among node leaders (the root leads its node) over p2p, then in shared memory",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
      .limits = kLimits};
  static constexpr std::array<int64_t, 2> kInner = iota<2>();
  static constexpr std::array<int64_t, 4> kOuter = iota<4>();
  static constexpr std::array<cct_param_desc, 3> params{{
      kSplitParam,
      choice("inner", "0 = binomial, 1 = two_level (shared-memory pipe)", kInner),
      choice("outer", "0 = binomial, 1 = knomial, 2 = scatter_allgather, 3 = chain", kOuter),
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Bcast(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  sdk::Comm comm_;
  Split split_;
  std::unique_ptr<Sub> inner_;
  std::unique_ptr<sdk::LeadersComm> leaders_;  // on every rank (any may be the root)
  std::unique_ptr<Sub> outer_;
};

// Reduce: each group reduces to the rank acting for it (the root in its own
// group, the leader elsewhere) through shared memory, then those reduce
// over p2p to the root. One vector per node crosses the network instead of
// one per rank, and the node's partial is combined where it was made.
class Reduce {
 public:
  static constexpr sdk::Info info{
      .name = "multinode",
      .doc = "reduce per node in shared memory, then among node leaders to the root over p2p",
      .collective = CCT_REDUCE,
      .required_caps = CCT_CAP_P2P,
      .limits = kLimits | CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};
  static constexpr std::array<int64_t, 3> kInner = iota<3>();
  static constexpr std::array<cct_param_desc, 3> params{{
      kSplitParam,
      choice("inner", "0 = binomial, 1 = rabenseifner, 2 = chain", kInner),
      choice("outer", "0 = binomial, 1 = rabenseifner, 2 = chain", kInner),
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Reduce(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  sdk::Comm comm_;
  Split split_;
  std::unique_ptr<Sub> inner_;
  std::unique_ptr<sdk::LeadersComm> leaders_;  // on every rank (any may be the root)
  std::unique_ptr<Sub> outer_;
  Scratch partial_;  // a leader's group result, when it is not the root
};

// Allreduce: reduce to each group's leader in shared memory, allreduce
// among the leaders over p2p, bcast from the leader in shared memory. The
// network carries the allreduce of `nodes` vectors instead of `size`.
class Allreduce {
 public:
  static constexpr sdk::Info info{
      .name = "multinode",
      .doc = "reduce per node in shared memory, allreduce among node leaders, bcast per node",
      .collective = CCT_ALLREDUCE,
      .required_caps = CCT_CAP_P2P,
      .limits = kLimits | CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};
  static constexpr std::array<int64_t, 3> kInner = iota<3>();
  static constexpr std::array<cct_param_desc, 3> params{{
      kSplitParam,
      choice("inner",
             "reduce + bcast in a node: 0 = binomial + binomial, 1 = rabenseifner + two_level, "
             "2 = chain + two_level",
             kInner),
      choice("outer", "0 = recursive_doubling, 1 = ring, 2 = rabenseifner", kInner),
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Allreduce(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  Split split_;
  std::unique_ptr<Sub> reduce_, bcast_;        // null when alone in the group
  std::unique_ptr<sdk::LeadersComm> leaders_;  // on the leaders only
  std::unique_ptr<Sub> outer_;
};

// Allgather: gather each group's blocks at its leader in shared memory,
// allgather the groups' packed blocks among the leaders over p2p, bcast
// the whole result in each group in shared memory. Each group's blocks
// cross the network as one message per step instead of one per rank. A
// group's ranks need not be consecutive (MPI may place ranks round-robin
// over nodes): the leader gathers its group's blocks packed, the leaders
// exchange packed groups, and each leader unpacks them into rank order
// (when every group is a range of consecutive ranks the packed order is
// rank order and the blocks go straight into the receive buffer). The
// leaders exchange equal pieces, so groups must be of equal size.
class Allgather {
 public:
  static constexpr sdk::Info info{
      .name = "multinode",
      .doc = "gather per node in shared memory, allgather of node blocks among leaders, bcast",
      .collective = CCT_ALLGATHER,
      .required_caps = CCT_CAP_P2P,
      .limits = kLimits | CCT_LIMIT_IN_PLACE};
  static constexpr std::array<int64_t, 3> kInner = iota<3>();
  static constexpr std::array<cct_param_desc, 3> params{{
      kSplitParam,
      choice("inner",
             "gather + bcast in a node: 0 = binomial + binomial, 1 = linear + two_level, "
             "2 = binomial + two_level",
             kInner),
      choice("outer", "0 = ring, 1 = bruck, 2 = recursive_doubling (power-of-two groups)", kInner),
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Allgather(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  sdk::Comm comm_;
  Split split_;
  bool ranges_;                                // every group is a range of consecutive ranks
  std::unique_ptr<Sub> gather_, bcast_;        // null when alone in the group
  std::unique_ptr<sdk::LeadersComm> leaders_;  // on the leaders only
  std::unique_ptr<Sub> outer_;
  Scratch packed_;  // a leader's blocks in group order, when that is not rank order
};

// Reduce-scatter (reduce_scatter_block and reduce_scatter, one template as
// in plugins/reduce_scatter): reduce the whole vector to each group's
// leader in shared memory, reduce-scatter among the leaders over p2p with
// one piece per group (the sum of its members' blocks), then scatter the
// piece from the leader in its group in shared memory. The network carries
// one piece per node instead of one block per rank, and the reduction of a
// node's inputs happens where they lie. Groups need not be ranges of
// consecutive ranks (the leader packs the reduced vector in group order
// first) nor of equal size (the pieces are counted per group). The
// reduction is no longer in rank order: commutative operators only.
template <cct_collective C>
class ReduceScatter {
 public:
  static constexpr sdk::Info info{
      .name = "multinode",
      .doc =
          "reduce per node in shared memory, reduce-scatter of node pieces among leaders, "
          "scatterv per node",
      .collective = C,
      .required_caps = CCT_CAP_P2P,
      .limits = kLimits | CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};
  static constexpr std::array<int64_t, 3> kInner = iota<3>();
  static constexpr std::array<int64_t, 2> kOuter = iota<2>();
  static constexpr std::array<cct_param_desc, 3> params{{
      kSplitParam,
      choice("inner", "reduce in a node: 0 = binomial, 1 = rabenseifner, 2 = chain", kInner),
      choice("outer", "0 = ring, 1 = recursive_halving", kOuter),
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  ReduceScatter(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  const std::byte* reduced(const cct_coll_args& args, const CountedBlocks& blocks);
  void count_pieces(const CountedBlocks& blocks);

  sdk::Comm comm_;
  Split split_;
  bool ranges_;                                // every group is a range of consecutive ranks
  std::unique_ptr<Sub> reduce_, scatter_;      // null when alone in the group
  std::unique_ptr<sdk::LeadersComm> leaders_;  // on the leaders only
  std::unique_ptr<Sub> outer_;
  reduce_scatter::RankBlocks ranks_;
  std::vector<std::size_t> pieces_;                         // per group, in elements
  std::vector<std::size_t> member_counts_, member_displs_;  // this group's, in its piece
  Scratch whole_, packed_, piece_;
};

// Allgatherv: gatherv each group's blocks at its leader in shared memory,
// packed in member order, allgatherv the packed pieces among the leaders
// over p2p (a group's piece: its members' counts summed), bcast the packed
// whole in each group in shared memory, and every rank unpacks it to its
// own displacements (writing nothing between the blocks). A group's blocks
// cross the network as one message per step instead of one per rank, and
// groups may be of any size, with any counts (zero included).
class Allgatherv {
 public:
  static constexpr sdk::Info info{
      .name = "multinode",
      .doc = "gatherv per node in shared memory, allgatherv of node pieces among leaders, bcast",
      .collective = CCT_ALLGATHERV,
      .required_caps = CCT_CAP_P2P,
      .limits = kLimits | CCT_LIMIT_IN_PLACE};
  static constexpr std::array<int64_t, 2> kInner = iota<2>();
  static constexpr std::array<cct_param_desc, 3> params{{
      kSplitParam,
      choice("inner", "gatherv + bcast in a node: 0 = linear + binomial, 1 = linear + two_level",
             kInner),
      choice("outer", "0 = ring, 1 = bruck", kInner),
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Allgatherv(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void count_pieces(const cct_coll_args& args);
  void unpack(const cct_coll_args& args, const std::byte* packed) const;

  sdk::Comm comm_;
  Split split_;
  std::unique_ptr<Sub> gatherv_, bcast_;       // null when alone in the group
  std::unique_ptr<sdk::LeadersComm> leaders_;  // on the leaders only
  std::unique_ptr<Sub> outer_;
  std::vector<std::size_t> offsets_;                // per rank, in the packed whole (elements)
  std::vector<std::size_t> pieces_, piece_displs_;  // per group, in elements
  std::vector<std::size_t> member_counts_, member_displs_;  // this group's, in its piece
  Scratch packed_;
};

}  // namespace cct::plugins::multinode
