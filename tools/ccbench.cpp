// ccbench: the runtime's dispatched collectives against the MPI library's
// own, measured side by side in one run, printed as ratios ours/MPI.
//
//   mpirun -np 2 ccbench [--min-bytes 1] [--max-bytes 1M] [--collectives a,b]
//
// Both are timed the same way: per size, repetitions alternate one MPI call
// and one runtime call, each preceded by MPI_Barrier; each rank times its
// own calls; a repetition's figure is the maximum over ranks; the point's
// figure is the median. A benchmark, not a test: nothing is asserted.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "cct/session.hpp"
#include "cct/units.hpp"
#include "mpi_bootstrap.hpp"

namespace {

struct Options {
  int64_t min_bytes = 1, max_bytes = 1 << 20;
  std::vector<cct_collective> collectives;
};

// One collective run both ways on the same buffers.
struct Bench {
  cct::Runtime& rt;
  MPI_Comm comm;
  int rank, size;
  std::vector<unsigned char> send, recv;

  void mpi(cct_collective c, int count, bool reduction);
  void ours(cct_collective c, int count, bool reduction);
};

void Bench::mpi(cct_collective c, int count, bool reduction) {
  MPI_Datatype t = reduction ? MPI_INT : MPI_BYTE;
  void *s = send.data(), *r = recv.data();
  switch (c) {
    case CCT_BARRIER: MPI_Barrier(comm); break;
    case CCT_BCAST: MPI_Bcast(r, count, t, 0, comm); break;
    case CCT_GATHER: MPI_Gather(s, count, t, r, count, t, 0, comm); break;
    case CCT_SCATTER: MPI_Scatter(s, count, t, r, count, t, 0, comm); break;
    case CCT_REDUCE: MPI_Reduce(s, r, count, t, MPI_SUM, 0, comm); break;
    case CCT_ALLREDUCE: MPI_Allreduce(s, r, count, t, MPI_SUM, comm); break;
    case CCT_ALLGATHER: MPI_Allgather(s, count, t, r, count, t, comm); break;
    default: MPI_Alltoall(s, count, t, r, count, t, comm); break;
  }
}

void Bench::ours(cct_collective c, int count, bool reduction) {
  const cct_datatype t = reduction ? CCT_INT32 : CCT_UINT8;
  void *s = send.data(), *r = recv.data();
  switch (c) {
    case CCT_BARRIER: rt.barrier(); break;
    case CCT_BCAST: rt.bcast(r, count, t, 0); break;
    case CCT_GATHER: rt.gather(s, r, count, t, 0); break;
    case CCT_SCATTER: rt.scatter(s, r, count, t, 0); break;
    case CCT_REDUCE: rt.reduce(s, r, count, t, CCT_SUM, 0); break;
    case CCT_ALLREDUCE: rt.allreduce(s, r, count, t, CCT_SUM); break;
    case CCT_ALLGATHER: rt.allgather(s, r, count, t); break;
    default: rt.alltoall(s, r, count, t); break;
  }
}

// Fewer repetitions for large messages: each point takes a similar time.
int repetitions(int64_t bytes) {
  return bytes <= 4096 ? 200 : bytes <= 65536 ? 60 : 20;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median over repetitions of the per-repetition maximum over ranks.
std::pair<double, double> measure(Bench& b, cct_collective c, int count, bool reduction, int reps) {
  std::vector<double> t_mpi(reps), t_ours(reps);
  for (int i = -2; i < reps; ++i) {  // two warm-up rounds
    MPI_Barrier(b.comm);
    double t0 = MPI_Wtime();
    b.mpi(c, count, reduction);
    double t1 = MPI_Wtime();
    MPI_Barrier(b.comm);
    double t2 = MPI_Wtime();
    b.ours(c, count, reduction);
    double t3 = MPI_Wtime();
    if (i >= 0) t_mpi[i] = t1 - t0, t_ours[i] = t3 - t2;
  }
  MPI_Allreduce(MPI_IN_PLACE, t_mpi.data(), reps, MPI_DOUBLE, MPI_MAX, b.comm);
  MPI_Allreduce(MPI_IN_PLACE, t_ours.data(), reps, MPI_DOUBLE, MPI_MAX, b.comm);
  return {median(t_mpi), median(t_ours)};
}

std::string algorithm_of(cct::Runtime& rt, cct_collective c, int count, bool reduction) {
  cct_coll_args a{sizeof a,
                  CCT_ABI_VERSION,
                  c,
                  nullptr,
                  nullptr,
                  static_cast<std::size_t>(count),
                  reduction ? CCT_INT32 : CCT_UINT8,
                  CCT_SUM,
                  0,
                  0};
  return rt.choice_for(a).algorithm->desc->name;
}

void run_collective(Bench& b, cct_collective c, const Options& o) {
  const bool reduction = c == CCT_REDUCE || c == CCT_ALLREDUCE;
  // Reductions move whole int32 elements: their smallest message is 4 bytes.
  const int64_t first = reduction ? std::max<int64_t>(o.min_bytes, 4) : o.min_bytes;
  const int64_t lo = c == CCT_BARRIER ? 0 : first, hi = c == CCT_BARRIER ? 0 : o.max_bytes;
  for (int64_t bytes = lo; bytes <= hi; bytes = bytes == 0 ? hi + 1 : bytes * 2) {
    const int count = static_cast<int>(reduction ? bytes / 4 : bytes);
    const int64_t real_bytes = reduction ? int64_t{count} * 4 : bytes;
    auto [mpi, ours] = measure(b, c, count, reduction, repetitions(real_bytes));
    if (b.rank == 0)
      std::printf("%-10s %8s %12.2f %12.2f %8.2f  %s\n", cct::collective_name(c),
                  cct::format_bytes(real_bytes).c_str(), mpi * 1e6, ours * 1e6, ours / mpi,
                  algorithm_of(b.rt, c, count, reduction).c_str());
  }
}

const char* const kUsage =
    "usage: mpirun -np N ccbench [--min-bytes B] [--max-bytes B] [--collectives a,b,...]\n"
    "Sizes are message sizes as profiles count them (e.g. 1, 4k, 1M), powers of two.\n";

bool parse_args(int argc, char** argv, Options& o, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return error = "missing value after " + arg, false;
    const std::string value = argv[++i];
    if (arg == "--min-bytes" || arg == "--max-bytes") {
      auto v = cct::parse_bytes(value);
      if (!v || *v < 1) return error = "bad size '" + value + "' for " + arg, false;
      (arg == "--min-bytes" ? o.min_bytes : o.max_bytes) = *v;
    } else if (arg == "--collectives") {
      std::stringstream ss(value);
      for (std::string name; std::getline(ss, name, ',');) {
        cct_collective c;
        if (!cct::parse_collective(name, &c))
          return error = "unknown collective '" + name + "'", false;
        o.collectives.push_back(c);
      }
    } else {
      return error = "unknown argument '" + arg + "'", false;
    }
  }
  if (o.collectives.empty())
    for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) o.collectives.push_back(cct_collective(c));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Options opts;
  std::string error;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!parse_args(argc, argv, opts, error)) {
    if (rank == 0) std::cerr << "ccbench: " << error << "\n" << kUsage;
    MPI_Finalize();
    return 2;
  }
  int status = 0;
  try {
    cct::Session session(std::make_unique<cct::MpiBootstrap>(MPI_COMM_WORLD));
    const std::size_t buffer = static_cast<std::size_t>(opts.max_bytes) * size + 64;
    Bench b{session.runtime(),
            MPI_COMM_WORLD,
            rank,
            size,
            std::vector<unsigned char>(buffer, 1),
            std::vector<unsigned char>(buffer)};
    if (rank == 0)
      std::printf(
          "ccbench: %d ranks; times in us (median over repetitions of the max over ranks)\n"
          "%-10s %8s %12s %12s %8s  %s\n",
          size, "collective", "bytes", "MPI", "cct", "cct/MPI", "cct algorithm");
    for (cct_collective c : opts.collectives) run_collective(b, c, opts);
  } catch (const std::exception& e) {
    std::cerr << "ccbench (rank " << rank << "): " << e.what() << "\n";
    status = 1;
  }
  MPI_Finalize();
  return status;
}
