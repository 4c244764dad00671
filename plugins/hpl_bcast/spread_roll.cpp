#include "hpl_bcast/spread_roll.hpp"

#include <algorithm>

#include "common/rooted.hpp"
#include "hpl_bcast/blong_pieces.hpp"

namespace cct::plugins::hpl {

int SpreadRoll::Team::rank_of(int k) const {
  return to_real(k == 0 ? 0 : k + skipped, root, size);
}

// The root posts its whole buffers and q - 1 spread and roll pieces each at
// once (one latency, bytes one after another), roll piece 0 last; it passes
// q - 2 more links, and the q - 2 pieces appended behind it cross the last.
// Across the halves (root 0): the whole buffer to each skipped rank and a
// piece to each participant of the upper half, and q - 1 pieces along each
// roll link that crosses.
cct_cost SpreadRoll::cost(int skipped, const sdk::Comm& comm, const cct_coll_args& args) {
  const int size = comm.size();
  const std::size_t bytes = rooted_bytes(args, size);
  if (bytes == 0 || size < 2) return {};
  const int direct = std::min(skipped, size - 1), q = size - direct;
  const double piece = static_cast<double>(bytes) / q;
  // The root's messages to the skipped ranks (whole buffers) or to the
  // other participants (pieces), counted at the receiver; then the roll's
  // links, participant k to k + 1, counted at the sender.
  const auto from_root = [&](bool to_skipped) {
    return sdk::crossing_ranks(
        size, [&](int r) { return r > 0 && (r <= direct) == to_skipped ? 0 : -1; });
  };
  const Team team{.q = q, .id = 0, .root = 0, .skipped = direct, .size = size};
  const double rolled = sdk::crossing_ranks(size, [&](int r) {
    if (r > 0 && r <= direct) return -1;  // skipped: not in the roll
    const int k = r == 0 ? 0 : r - direct;
    return k + 1 < q ? team.rank_of(k + 1) : -1;
  });
  return sdk::flat_cost(comm, std::max(q - 1, 1),
                        direct * static_cast<double>(bytes) + std::max(4 * q - 6, 0) * piece)
      .cross(from_root(true) * static_cast<double>(bytes) +
             (from_root(false) + rolled * (q - 1)) * piece);
}

SpreadRoll::SpreadRoll(const sdk::Comm& comm, int skipped)
    : comm_(comm),
      skipped_(std::min(skipped, comm.size() - 1)),
      direct_(std::max(skipped_, 1)),
      spread_(std::max(comm.size() - skipped_ - 1, 1)),
      roll_in_(spread_.size()),
      roll_out_(spread_.size()) {}

void SpreadRoll::run(const cct_coll_args& args) {
  const int size = comm_.size();
  const std::size_t bytes = rooted_bytes(args, size);
  if (bytes == 0) return;
  auto* buf = static_cast<std::byte*>(args.recvbuf);
  const int vrank = to_virtual(comm_.rank(), args.root, size);
  if (vrank >= 1 && vrank <= skipped_) {
    comm_.recv(buf, bytes, args.root, args.tag);
    return;
  }
  const Team team{.q = size - skipped_,
                  .id = vrank == 0 ? 0 : vrank - skipped_,
                  .root = args.root,
                  .skipped = skipped_,
                  .size = size};
  const Blocks pieces(args.count, team.q, elem_size(args));
  if (team.id == 0)
    run_root(team, buf, bytes, pieces, args.tag);
  else
    run_member(team, buf, pieces, args.tag);
}

// The skipped ranks get the whole buffer first; then each participant its
// piece; then the roll to participant 1, all of it available at once.
void SpreadRoll::run_root(const Team& team, std::byte* buf, std::size_t bytes, const Blocks& pieces,
                          uint32_t tag) {
  for (int v = 1; v <= skipped_; ++v)
    comm_.isend(buf, bytes, to_real(v, team.root, team.size), tag, direct_[v - 1]);
  for (int k = 1; k < team.q; ++k)
    comm_.isend(buf + pieces.offset(k), pieces.bytes(k), team.rank_of(k), tag, spread_[k - 1]);
  for (int step = 0; step + 1 < team.q; ++step) {
    const int piece = roll_send_piece(0, step, team.q);
    comm_.isend(buf + pieces.offset(piece), pieces.bytes(piece), team.rank_of(1), tag,
                roll_out_[step]);
  }
  comm_.waitall(direct_.data(), skipped_);
  comm_.waitall(spread_.data(), team.q - 1);
  comm_.waitall(roll_out_.data(), team.q - 1);
}

// Posts every receive, then forwards the roll in order, each send waiting
// only for the receive of the piece it carries.
void SpreadRoll::run_member(const Team& team, std::byte* buf, const Blocks& pieces, uint32_t tag) {
  const int k = team.id, q = team.q;
  comm_.irecv(buf + pieces.offset(k), pieces.bytes(k), team.root, tag, spread_[0]);
  for (int step = 0; step + 1 < q; ++step) {
    const int piece = roll_piece(k, step, q);
    comm_.irecv(buf + pieces.offset(piece), pieces.bytes(piece), team.rank_of(k - 1), tag,
                roll_in_[step]);
  }
  int received = 0;  // roll receives waited for
  bool own = false;  // spread receive waited for
  const int sends = k + 1 < q ? q - 1 : 0;
  for (int step = 0; step < sends; ++step) {
    const int piece = roll_send_piece(k, step, q);
    if (piece == k) {
      comm_.waitall(spread_.data(), 1);
      own = true;
    } else {
      const int needed = roll_step_of(k, piece, q) + 1;
      comm_.waitall(roll_in_.data() + received, std::max(needed - received, 0));
      received = std::max(received, needed);
    }
    comm_.isend(buf + pieces.offset(piece), pieces.bytes(piece), team.rank_of(k + 1), tag,
                roll_out_[step]);
  }
  if (!own) comm_.waitall(spread_.data(), 1);
  comm_.waitall(roll_in_.data() + received, q - 1 - received);
  comm_.waitall(roll_out_.data(), sends);
}

}  // namespace cct::plugins::hpl
