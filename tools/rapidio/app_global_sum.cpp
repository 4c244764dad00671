// (c) The seed's global sum: every DSP contributes a vector and every DSP
// (or the root) needs the element-wise sum. Hand-written as the seed did,
// a butterfly: in round k each DSP exchanges its partial sums with the DSP
// whose rank differs in bit k and adds, so after log2 p rounds all hold
// the total. Beside it the runtime's allreduce and reduce of the same
// vectors, whatever algorithm the dispatcher picks on this fabric.
#include <bit>

#include "app.hpp"
#include "cct/sdk/comm.hpp"

namespace cct::rio_tools {
namespace {

constexpr std::size_t kCount = 1000;
constexpr uint32_t kButterflyTag = 11;

std::vector<int64_t> contribution(int rank) {
  std::vector<int64_t> v(kCount);
  for (std::size_t i = 0; i < kCount; ++i) v[i] = static_cast<int64_t>(rank) * 1000003 + i;
  return v;
}

std::vector<int64_t> host_sum(int ranks) {
  std::vector<int64_t> sum(kCount, 0);
  for (int r = 0; r < ranks; ++r) {
    const std::vector<int64_t> v = contribution(r);
    for (std::size_t i = 0; i < kCount; ++i) sum[i] += v[i];
  }
  return sum;
}

void butterfly(const Communicator& comm) {
  const sdk::Comm p2p(comm.raw());
  std::vector<int64_t> sum = contribution(comm.rank()), theirs(kCount);
  const std::size_t bytes = kCount * sizeof(int64_t);
  for (int bit = 1; bit < comm.size(); bit <<= 1) {
    const int partner = comm.rank() ^ bit;
    p2p.sendrecv(sum.data(), bytes, partner, theirs.data(), bytes, partner, kButterflyTag);
    for (std::size_t i = 0; i < kCount; ++i) sum[i] += theirs[i];
  }
  expect(sum == host_sum(comm.size()),
         "butterfly sum differs on rank " + std::to_string(comm.rank()));
}

void runtime_allreduce(Runtime& rt) {
  const std::vector<int64_t> mine = contribution(rt.rank());
  std::vector<int64_t> sum(kCount);
  rt.allreduce(mine.data(), sum.data(), kCount, CCT_INT64, CCT_SUM);
  expect(sum == host_sum(rt.size()), "allreduce differs on rank " + std::to_string(rt.rank()));
}

void runtime_reduce(Runtime& rt) {
  const std::vector<int64_t> mine = contribution(rt.rank());
  std::vector<int64_t> sum(rt.rank() == 0 ? kCount : 0);
  rt.reduce(mine.data(), sum.data(), kCount, CCT_INT64, CCT_SUM, 0);
  if (rt.rank() == 0) expect(sum == host_sum(rt.size()), "reduce differs at the root");
}

}  // namespace

std::vector<AppReport> global_sum(const SimulatedFabric& fabric, const AppSettings& s) {
  if (!std::has_single_bit(static_cast<unsigned>(s.ranks)))
    return {AppReport{.name = "butterfly sum",
                      .ranks = s.ranks,
                      .failure = "the butterfly needs a power-of-two number of DSPs"}};
  auto by_butterfly = [](Bootstrap&, const std::shared_ptr<Communicator>& comm) {
    butterfly(*comm);
  };
  auto by_allreduce = [&](Bootstrap&, const std::shared_ptr<Communicator>& comm) {
    runtime_allreduce(*runtime_on(fabric, comm));
  };
  auto by_reduce = [&](Bootstrap&, const std::shared_ptr<Communicator>& comm) {
    runtime_reduce(*runtime_on(fabric, comm));
  };
  return {run_app(fabric, "sum butterfly (p2p)", s.ranks, by_butterfly),
          run_app(fabric, "sum runtime allreduce", s.ranks, by_allreduce),
          run_app(fabric, "sum runtime reduce", s.ranks, by_reduce)};
}

}  // namespace cct::rio_tools
