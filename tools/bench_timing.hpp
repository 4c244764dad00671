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
// each after MPI_Barrier; two warm-up rounds go untimed.
inline std::vector<double> measure(MPI_Comm comm,
                                   const std::vector<std::function<void()>>& contenders, int reps) {
  std::vector<std::vector<double>> times(contenders.size(), std::vector<double>(reps));
  for (int i = -2; i < reps; ++i)
    for (std::size_t k = 0; k < contenders.size(); ++k) {
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
