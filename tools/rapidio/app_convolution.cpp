// (d) The seed's convolution by im2col: a 36x36x3 image and a 5x5x3 kernel,
// VALID padding, stride 1, give a 32x32 output; each output pixel is the
// dot product of the kernel with the 75 input values under it (one im2col
// row). The root builds the 1024 rows, scatters them over the DSPs, bcasts
// the kernel; each DSP computes its outputs and the root gathers them.
// Integers, so the result must equal the host's direct convolution exactly.
#include "app.hpp"

namespace cct::rio_tools {
namespace {

constexpr int kSide = 36, kChannels = 3, kKernel = 5;
constexpr int kOut = kSide - kKernel + 1;            // 32
constexpr int kRow = kKernel * kKernel * kChannels;  // 75 values per im2col row
constexpr int kRows = kOut * kOut;                   // 1024
constexpr int kRoot = 0;

int32_t pixel(int y, int x, int c) {
  return (y * 7 + x * 3 + c * 11) % 17 - 8;
}
int32_t weight(int y, int x, int c) {
  return ((y * kKernel + x) * kChannels + c) * 5 % 9 - 4;
}

// Row (oy, ox) of im2col and the kernel flattened in the same order.
std::vector<int32_t> im2col() {
  std::vector<int32_t> rows;
  rows.reserve(kRows * kRow);
  for (int oy = 0; oy < kOut; ++oy)
    for (int ox = 0; ox < kOut; ++ox)
      for (int y = 0; y < kKernel; ++y)
        for (int x = 0; x < kKernel; ++x)
          for (int c = 0; c < kChannels; ++c) rows.push_back(pixel(oy + y, ox + x, c));
  return rows;
}

std::vector<int32_t> flat_kernel() {
  std::vector<int32_t> k;
  for (int y = 0; y < kKernel; ++y)
    for (int x = 0; x < kKernel; ++x)
      for (int c = 0; c < kChannels; ++c) k.push_back(weight(y, x, c));
  return k;
}

// The convolution computed directly from its definition, not from im2col.
std::vector<int32_t> host_convolution() {
  std::vector<int32_t> out(kRows, 0);
  for (int oy = 0; oy < kOut; ++oy)
    for (int ox = 0; ox < kOut; ++ox)
      for (int y = 0; y < kKernel; ++y)
        for (int x = 0; x < kKernel; ++x)
          for (int c = 0; c < kChannels; ++c)
            out[oy * kOut + ox] += pixel(oy + y, ox + x, c) * weight(y, x, c);
  return out;
}

void convolve(Runtime& rt) {
  const bool root = rt.rank() == kRoot;
  const std::size_t my_rows = kRows / rt.size();
  const std::vector<int32_t> rows = root ? im2col() : std::vector<int32_t>();
  std::vector<int32_t> kernel = root ? flat_kernel() : std::vector<int32_t>(kRow);
  std::vector<int32_t> my_part(my_rows * kRow), my_out(my_rows, 0), out(root ? kRows : 0);
  rt.scatter(rows.data(), my_part.data(), my_rows * kRow, CCT_INT32, kRoot);
  rt.bcast(kernel.data(), kRow, CCT_INT32, kRoot);
  for (std::size_t r = 0; r < my_rows; ++r)
    for (int i = 0; i < kRow; ++i) my_out[r] += my_part[r * kRow + i] * kernel[i];
  rt.gather(my_out.data(), out.data(), my_rows, CCT_INT32, kRoot);
  if (root) expect(out == host_convolution(), "the output differs from the host's convolution");
}

}  // namespace

std::vector<AppReport> convolution(const SimulatedFabric& fabric, const AppSettings& s) {
  if (kRows % s.ranks != 0)
    return {AppReport{.name = "conv im2col",
                      .ranks = s.ranks,
                      .failure = "1024 im2col rows do not split evenly over the DSPs"}};
  auto body = [&](Bootstrap&, const std::shared_ptr<Communicator>& comm) {
    convolve(*runtime_on(fabric, comm));
  };
  return {run_app(fabric, "conv im2col 36x36x3 * 5x5x3", s.ranks, body)};
}

}  // namespace cct::rio_tools
