// Dense row-major matrices of doubles holding small integers, so that every
// product and sum the applications form is exact and their results can be
// compared with the host's for equality.
#pragma once

#include <cstddef>
#include <vector>

namespace cct::rio_tools {

// c (m x n) += a (m x k) * b (k x n), each with its own row stride.
inline void multiply_add(const double* a, std::size_t lda, const double* b, std::size_t ldb,
                         double* c, std::size_t ldc, std::size_t m, std::size_t k, std::size_t n) {
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t l = 0; l < k; ++l)
      for (std::size_t j = 0; j < n; ++j) c[i * ldc + j] += a[i * lda + l] * b[l * ldb + j];
}

// An n x n matrix whose element (i, j) is a small integer that depends on
// the seed.
inline std::vector<double> test_matrix(std::size_t n, int seed) {
  std::vector<double> m(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      m[i * n + j] = static_cast<double>(static_cast<int>((i * 3 + j * 5 + seed) % 7) - 3);
  return m;
}

inline std::vector<double> host_product(const std::vector<double>& a, const std::vector<double>& b,
                                        std::size_t n) {
  std::vector<double> c(n * n, 0);
  multiply_add(a.data(), n, b.data(), n, c.data(), n, n, n, n);
  return c;
}

}  // namespace cct::rio_tools
