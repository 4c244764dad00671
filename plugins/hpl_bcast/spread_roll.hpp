// The engine of HPL's long broadcasts (blong, blongM): spread + roll, with
// the two phases overlapped (the improvement the "HPL on heterogeneous
// systems" seed in docs/design.md makes to HPL's blong).
//
// The buffer is cut into q pieces, one per participant. Spread: the root
// sends participant k its piece k. Roll: q - 1 transfers along the ring of
// participants until every one holds every piece. Each rank moves about 2n
// bytes instead of a tree's n log p, and no rank sends more than the root's
// 2n, so it is the bandwidth broadcast for large panels.
//
// In HPL's blong both phases work in the one panel buffer: the roll sends
// out of the very region the spread receives into, starting with the
// rank's own spread piece, so a rank enters the roll only when its spread
// receive has completed, and the roll's lockstep exchanges then wait on the
// slowest spread. Here the spread's receive buffer (this rank's own piece)
// and the roll's send buffer (pieces that came from the left neighbour) are
// separate: the roll forwards what it has, and the own piece goes last
// (blong_pieces.hpp gives the order). Every receive of both phases is posted
// at once, each into its piece's final place; the root starts rolling the
// pieces it already holds at the same moment as it spreads, and every rank
// forwards each rolled piece as it arrives, while its spread piece is still
// on the way. The two phases run concurrently instead of one after the
// other, and a late spread delays only the last message of each link.
//
// Empty pieces (count < q) are still sent, as empty messages: both sides
// then follow the one schedule without special cases, at the cost of a few
// zero-byte messages for buffers too small for this algorithm anyway.
#pragma once

#include <cstddef>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/blocks.hpp"

namespace cct::plugins::hpl {

class SpreadRoll {
 public:
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(int skipped, const sdk::Comm& comm, const cct_coll_args& args);
  // `skipped`: virtual ranks 1..skipped get the whole buffer straight from
  // the root, first, and sit out the spread and roll (blongM: 1).
  SpreadRoll(const sdk::Comm& comm, int skipped);
  void run(const cct_coll_args& args);

 private:
  // The participants: the root (0) and virtual ranks skipped+1 .. p-1.
  struct Team {
    int q;   // participants
    int id;  // this rank's participant number (only when it takes part)
    int root;
    int skipped;
    int size;
    int rank_of(int id) const;
  };

  void run_root(const Team& team, std::byte* buf, std::size_t bytes, const Blocks& pieces,
                uint32_t tag);
  void run_member(const Team& team, std::byte* buf, const Blocks& pieces, uint32_t tag);

  sdk::Comm comm_;
  int skipped_;
  std::vector<cct_request> direct_;    // the root's whole-buffer sends to the skipped ranks
  std::vector<cct_request> spread_;    // the root's piece sends, or a member's own piece receive
  std::vector<cct_request> roll_in_;   // roll receives, by step
  std::vector<cct_request> roll_out_;  // roll sends, by step
};

}  // namespace cct::plugins::hpl
