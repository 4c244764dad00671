// ccbench's timing method, shared by its modes: contenders side by side,
// interleaved call by call (see ccbench.cpp's header).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace cct::bench {

// Fewer repetitions for large messages: each point takes a similar time.
inline int repetitions(int64_t bytes) {
  return bytes <= 4096 ? 200 : bytes <= 65536 ? 60 : 20;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The order of the contenders in repetition `rep`: a permutation drawn
// anew each repetition, the same on every rank. A fixed LCG draws it, not
// std::shuffle, whose draws may differ between standard libraries (ranks
// on hosts of different systems would then call different collectives).
inline std::vector<std::size_t> order_of(std::size_t contenders, int rep) {
  std::vector<std::size_t> order(contenders);
  for (std::size_t k = 0; k < contenders; ++k) order[k] = k;
  uint64_t state = 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(rep + 2);
  for (std::size_t k = contenders; k > 1; --k) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(order[k - 1], order[(state >> 33) % k]);
  }
  return order;
}

// Per contender, the median over repetitions of the per-repetition maximum
// over ranks. Each repetition runs one call of every contender, each after
// MPI_Barrier, in an order drawn for it (order_of); two warm-up rounds go
// untimed. A call may find the state the one before it left (a link's
// token bucket emptied, caches filled): in a fixed order, or a rotation
// of one, the same contender would always follow the same other one and
// carry that cost every time.
inline std::vector<double> measure(MPI_Comm comm,
                                   const std::vector<std::function<void()>>& contenders, int reps) {
  std::vector<std::vector<double>> times(contenders.size(), std::vector<double>(reps));
  for (int i = -2; i < reps; ++i)
    for (const std::size_t k : order_of(contenders.size(), i)) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      contenders[k]();
      if (i >= 0) times[k][i] = MPI_Wtime() - t0;
    }
  std::vector<double> medians;
  for (std::vector<double>& t : times) {
    MPI_Allreduce(MPI_IN_PLACE, t.data(), reps, MPI_DOUBLE, MPI_MAX, comm);
    medians.push_back(median(t));
  }
  return medians;
}

// Per contender, what an OSU-style loop around a program's call sees (as
// the tuner's confirmation times it, tuner/measure.hpp): in each of 5
// rounds, a block of `calls` calls of every contender, the order rotating
// each round, each call timed alone and followed by MPI_Barrier; a
// block's figure is this rank's mean over it averaged over ranks; the
// median over the rounds. Ten untimed calls of each come first.
inline std::vector<double> measure_as_programs(MPI_Comm comm,
                                               const std::vector<std::function<void()>>& contenders,
                                               int calls) {
  constexpr int kRounds = 5;
  int size = 1;
  MPI_Comm_size(comm, &size);
  const std::size_t k = contenders.size();
  for (const std::function<void()>& c : contenders)
    for (int n = 0; n < 10; ++n) {
      c();
      MPI_Barrier(comm);
    }
  std::vector<std::vector<double>> figures(k);
  for (int round = 0; round < kRounds; ++round) {
    std::vector<double> mine(k);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t j = (i + static_cast<std::size_t>(round)) % k;
      double sum = 0;
      for (int n = 0; n < calls; ++n) {
        const double t0 = MPI_Wtime();
        contenders[j]();
        sum += MPI_Wtime() - t0;
        MPI_Barrier(comm);
      }
      mine[j] = sum / calls;
    }
    MPI_Allreduce(MPI_IN_PLACE, mine.data(), static_cast<int>(k), MPI_DOUBLE, MPI_SUM, comm);
    for (std::size_t j = 0; j < k; ++j) figures[j].push_back(mine[j] / size);
  }
  std::vector<double> medians;
  for (std::vector<double>& f : figures) medians.push_back(median(f));
  return medians;
}

}  // namespace cct::bench
