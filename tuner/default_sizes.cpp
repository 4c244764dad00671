#include "tuner/default_sizes.hpp"

#include <algorithm>
#include <bit>
#include <iterator>
#include <set>

namespace cct::tuner {

std::vector<int> doubling_sizes(int first, int most) {
  std::vector<int> sizes;
  for (int n = first; n < most; n *= 2) sizes.push_back(n);
  sizes.push_back(std::max(first, most));
  return sizes;
}

std::vector<int> measured_sizes(std::vector<int> doubling) {
  if (doubling.back() <= kEveryDoublingUpTo) return doubling;
  std::vector<int> measured;
  for (int n : doubling)
    if (n <= 4 || n == doubling.back() || (std::countr_zero(unsigned(n)) % 2 == 0))
      measured.push_back(n);
  return measured;
}

std::vector<int> default_nps(int cores) {
  return measured_sizes(doubling_sizes(2, cores));
}

std::vector<int> default_predicted_nps(int cores) {
  return doubling_sizes(2, cores);
}

std::vector<int> predicted_nps(const std::vector<int>& asked, int cores) {
  return asked.empty() ? default_predicted_nps(cores) : asked;
}

std::vector<int> confirmed_sizes(const std::vector<int>& measured,
                                 const std::vector<int>& predicted) {
  const std::set<int> whole(measured.begin(), measured.end());
  if (whole.size() < 3) return {};
  const int low = *std::next(whole.begin()), high = *whole.rbegin();
  std::set<int> confirmed;
  for (int n : predicted)
    if (n > low && n < high && !whole.contains(n)) confirmed.insert(n);
  return {confirmed.begin(), confirmed.end()};
}

}  // namespace cct::tuner
