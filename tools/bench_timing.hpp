// ccbench's timing method, shared by its modes: contenders side by side,
// interleaved call by call (see ccbench.cpp's header).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <functional>
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

// Per contender, the median over repetitions of the per-repetition maximum
// over ranks. Each repetition runs one call of every contender in turn,
// each after MPI_Barrier; two warm-up rounds go untimed. The contender that
// goes first changes from one repetition to the next (every rank takes the
// same order): a call that goes after another may find the state that one
// left (a link's token bucket emptied, caches filled), and a fixed order
// would charge that to the same contender every time.
inline std::vector<double> measure(MPI_Comm comm,
                                   const std::vector<std::function<void()>>& contenders, int reps) {
  const std::size_t n = contenders.size();
  std::vector<std::vector<double>> times(n, std::vector<double>(reps));
  for (int i = -2; i < reps; ++i)
    for (std::size_t turn = 0; turn < n; ++turn) {
      const std::size_t k = (static_cast<std::size_t>(i + 2) + turn) % n;
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

}  // namespace cct::bench
