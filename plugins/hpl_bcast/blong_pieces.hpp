// The piece arithmetic of the long broadcast (spread + roll, see
// spread_roll.hpp), on participants 0..q-1 where 0 is the root.
//
// The buffer is cut into q pieces; the spread gives participant k piece k
// straight from the root. The roll is a chain 0 -> 1 -> .. -> q-1: along
// every link the same sequence of pieces flows, and participant k receives,
// in this order,
//   q-1, q-2, .., k+1   (pieces the root starts rolling at once), then
//   0, 1, .., k-1       (each appended by its owner after its forwards),
// that is every piece but its own. k forwards what k + 1 must receive: the
// same sequence without piece k + 1, with its own piece k last. So a rank
// forwards pieces as they arrive and needs its spread piece only for its
// final send: the roll never waits for the spread.
#pragma once

namespace cct::plugins::hpl {

// The piece participant k (1 <= k < q) receives at roll step i (0 <= i < q-1).
inline int roll_piece(int k, int step, int q) {
  const int from_root = q - 1 - k;  // steps carrying pieces q-1 .. k+1
  return step < from_root ? q - 1 - step : step - from_root;
}

// The roll step at which participant k receives piece x (x != k): the
// inverse of roll_piece.
inline int roll_step_of(int k, int piece, int q) {
  return piece > k ? q - 1 - piece : piece + (q - 1 - k);
}

// The piece participant k (0 <= k < q-1) sends to k + 1 at roll step i.
inline int roll_send_piece(int k, int step, int q) {
  return roll_piece(k + 1, step, q);
}

}  // namespace cct::plugins::hpl
