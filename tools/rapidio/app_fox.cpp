// (b) Fox's matrix multiply, as the seed ran it: the DSPs form a q x q grid
// and DSP (i, j) owns blocks A_ij, B_ij and C_ij. In step s the DSP of row
// i holding A_i,(i+s) broadcasts it along row i (a row communicator made
// by splitting the job's bootstrap by row, the simulator's LOCAL
// communicator), every DSP multiplies it by the B block it holds and adds
// to C_ij, then B's blocks roll one row up by p2p. Every DSP moves one
// block per step, and the broadcasts stay within a row.
#include <cmath>
#include <cstring>

#include "app.hpp"
#include "cct/sdk/comm.hpp"
#include "cct/simulate.hpp"
#include "matrix.hpp"

namespace cct::rio_tools {
namespace {

constexpr int kRoot = 0;
constexpr uint32_t kRollTag = 7;

// The matrix cut into q x q blocks of nb x nb, block (i, j) stored
// contiguously at index i * q + j: the order a scatter hands them out.
// copy(block_offset, matrix_offset, nb) is called for every row of every
// block, so one walk serves both directions.
template <class Copy>
void for_each_block_row(std::size_t n, std::size_t q, Copy copy) {
  const std::size_t nb = n / q;
  for (std::size_t bi = 0; bi < q; ++bi)
    for (std::size_t bj = 0; bj < q; ++bj)
      for (std::size_t r = 0; r < nb; ++r)
        copy((bi * q + bj) * nb * nb + r * nb, (bi * nb + r) * n + bj * nb, nb);
}

std::vector<double> to_blocks(const std::vector<double>& m, std::size_t n, std::size_t q) {
  std::vector<double> blocks(n * n);
  for_each_block_row(n, q, [&](std::size_t block, std::size_t matrix, std::size_t len) {
    std::memcpy(&blocks[block], &m[matrix], len * sizeof(double));
  });
  return blocks;
}

std::vector<double> from_blocks(const std::vector<double>& blocks, std::size_t n, std::size_t q) {
  std::vector<double> m(n * n);
  for_each_block_row(n, q, [&](std::size_t block, std::size_t matrix, std::size_t len) {
    std::memcpy(&m[matrix], &blocks[block], len * sizeof(double));
  });
  return m;
}

struct Grid {
  int q, row, col;
  int rank_of(int i, int j) const { return ((i + q) % q) * q + (j + q) % q; }
};

void fox(Bootstrap& boot, const SimulatedFabric& fabric, const std::shared_ptr<Communicator>& comm,
         std::size_t n) {
  const int q = static_cast<int>(std::lround(std::sqrt(comm->size())));
  const Grid grid{q, comm->rank() / q, comm->rank() % q};
  const std::size_t nb = n / q, block = nb * nb;
  auto rt = runtime_on(fabric, comm);
  auto row_boot = split_bootstrap(boot, grid.row);
  auto row_rt = runtime_on(fabric, simulated_communicator(fabric.transport(), *row_boot));
  const sdk::Comm p2p(comm->raw());

  const bool root = comm->rank() == kRoot;
  const std::vector<double> a = root ? test_matrix(n, 1) : std::vector<double>();
  const std::vector<double> b = root ? test_matrix(n, 2) : std::vector<double>();
  std::vector<double> my_a(block), my_b(block), row_a(block), next_b(block), my_c(block, 0);
  rt->scatter(root ? to_blocks(a, n, q).data() : nullptr, my_a.data(), block, CCT_DOUBLE, kRoot);
  rt->scatter(root ? to_blocks(b, n, q).data() : nullptr, my_b.data(), block, CCT_DOUBLE, kRoot);
  for (int step = 0; step < q; ++step) {
    const int holder = (grid.row + step) % q;  // column of the A block row i uses now
    if (grid.col == holder) row_a = my_a;
    row_rt->bcast(row_a.data(), block, CCT_DOUBLE, holder);
    multiply_add(row_a.data(), nb, my_b.data(), nb, my_c.data(), nb, nb, nb, nb);
    if (step + 1 == q) break;
    p2p.sendrecv(my_b.data(), block * sizeof(double), grid.rank_of(grid.row - 1, grid.col),
                 next_b.data(), block * sizeof(double), grid.rank_of(grid.row + 1, grid.col),
                 kRollTag);
    my_b.swap(next_b);
  }
  std::vector<double> c_blocks(root ? n * n : 0);
  rt->gather(my_c.data(), c_blocks.data(), block, CCT_DOUBLE, kRoot);
  if (root) expect(from_blocks(c_blocks, n, q) == host_product(a, b, n), "C differs from A x B");
}

}  // namespace

std::vector<AppReport> fox_multiply(const SimulatedFabric& fabric, const AppSettings& s) {
  const int q = static_cast<int>(std::sqrt(s.ranks));
  auto body = [&](Bootstrap& boot, const std::shared_ptr<Communicator>& comm) {
    fox(boot, fabric, comm, s.n);
  };
  const std::string name = "fox " + std::to_string(q) + "x" + std::to_string(q) + " grid";
  return {run_app(fabric, name, q * q, body)};
}

}  // namespace cct::rio_tools
