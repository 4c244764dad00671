// A one-factorisation of the complete graph on n ranks: rounds in each of
// which the ranks pair up, every pair meeting in exactly one round. The
// schedule of the scheduled alltoall (scheduled.hpp). Pure arithmetic, so
// the unit tests check the pairing property for every n directly.
//
// - n a power of two: round r pairs rank i with i ^ (r + 1), n - 1 rounds
//   (XOR is an involution without fixed points for r + 1 != 0, and distinct
//   rounds give distinct partners).
// - n odd: the circle method, n rounds; in round r rank i meets
//   (2r - i) mod n, and the one rank with i = r (2 is invertible mod n)
//   idles.
// - n even: the odd schedule on ranks 0..n-2, n - 1 rounds, where each round's
//   idle rank meets rank n - 1 instead.
#pragma once

#include <bit>

namespace cct::plugins::alltoall {

inline int one_factor_rounds(int n) {
  return n % 2 == 1 ? (n == 1 ? 0 : n) : n - 1;
}

// The partner of `rank` in `round` (0 <= round < one_factor_rounds(n)), or
// -1 when it idles this round (odd n only).
inline int one_factor_partner(int rank, int round, int n) {
  if (std::has_single_bit(static_cast<unsigned>(n))) return rank ^ (round + 1);
  const int odd = n % 2 == 1 ? n : n - 1;  // ranks the circle method turns
  if (rank == odd) return round;           // rank n - 1 of an even n
  const int partner = ((2 * round - rank) % odd + odd) % odd;
  if (partner != rank) return partner;
  return n == odd ? -1 : n - 1;
}

}  // namespace cct::plugins::alltoall
