// (a) The seed's matrix multiply, C = A x B on p DSPs, two ways:
// - rows: DSP r gets row block r of A (scatter) and all of B (bcast),
//   computes row block r of C and the root gathers C: the classic
//   distribution, one bcast of the whole of B;
// - partial products: DSP r gets column block r of A and row block r of B
//   (two scatters, each 1/p of a matrix), computes their n x n product, and
//   a reduce sums the p products at the root: less input per DSP, but the
//   reduce moves p full matrices, which is where in-switch reduction pays.
#include <cstring>

#include "app.hpp"
#include "matrix.hpp"

namespace cct::rio_tools {
namespace {

constexpr int kRoot = 0;

void check_product(const std::vector<double>& c, const std::vector<double>& a,
                   const std::vector<double>& b, std::size_t n) {
  expect(c == host_product(a, b, n), "C differs from the host's A x B");
}

void by_rows(Runtime& rt, std::size_t n) {
  const bool root = rt.rank() == kRoot;
  const std::size_t rows = n / rt.size();
  const std::vector<double> a = root ? test_matrix(n, 1) : std::vector<double>();
  std::vector<double> b = root ? test_matrix(n, 2) : std::vector<double>(n * n);
  std::vector<double> a_rows(rows * n), c_rows(rows * n, 0), c(root ? n * n : 0);
  rt.scatter(a.data(), a_rows.data(), rows * n, CCT_DOUBLE, kRoot);
  rt.bcast(b.data(), n * n, CCT_DOUBLE, kRoot);
  multiply_add(a_rows.data(), n, b.data(), n, c_rows.data(), n, rows, n, n);
  rt.gather(c_rows.data(), c.data(), rows * n, CCT_DOUBLE, kRoot);
  if (root) check_product(c, a, b, n);
}

// A's column blocks side by side in rank order, each w columns wide and
// stored contiguously (n x w), so that a scatter hands out one per rank.
std::vector<double> column_blocks(const std::vector<double>& a, std::size_t n, std::size_t w) {
  std::vector<double> packed(n * n);
  for (std::size_t r = 0; r < n / w; ++r)
    for (std::size_t i = 0; i < n; ++i)
      std::memcpy(&packed[r * n * w + i * w], &a[i * n + r * w], w * sizeof(double));
  return packed;
}

void by_partial_products(Runtime& rt, std::size_t n) {
  const bool root = rt.rank() == kRoot;
  const std::size_t w = n / rt.size();
  const std::vector<double> a = root ? test_matrix(n, 1) : std::vector<double>();
  const std::vector<double> b = root ? test_matrix(n, 2) : std::vector<double>();
  const std::vector<double> a_packed = root ? column_blocks(a, n, w) : std::vector<double>();
  std::vector<double> a_cols(n * w), b_rows(w * n), partial(n * n, 0), c(root ? n * n : 0);
  rt.scatter(a_packed.data(), a_cols.data(), n * w, CCT_DOUBLE, kRoot);
  rt.scatter(b.data(), b_rows.data(), w * n, CCT_DOUBLE, kRoot);
  multiply_add(a_cols.data(), w, b_rows.data(), n, partial.data(), n, n, w, n);
  rt.reduce(partial.data(), c.data(), n * n, CCT_DOUBLE, CCT_SUM, kRoot);
  if (root) check_product(c, a, b, n);
}

}  // namespace

std::vector<AppReport> matrix_multiply(const SimulatedFabric& fabric, const AppSettings& s) {
  const auto n = static_cast<std::size_t>(s.n);
  auto rows = [&](Bootstrap&, const std::shared_ptr<Communicator>& comm) {
    by_rows(*runtime_on(fabric, comm), n);
  };
  auto partial = [&](Bootstrap&, const std::shared_ptr<Communicator>& comm) {
    by_partial_products(*runtime_on(fabric, comm), n);
  };
  return {run_app(fabric, "matmul scatter+bcast+gather", s.ranks, rows),
          run_app(fabric, "matmul partial products+reduce", s.ranks, partial)};
}

}  // namespace cct::rio_tools
