#include "support/reference.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>

namespace cct::test {
namespace {

std::size_t width(cct_datatype dtype) {
  static const std::size_t sizes[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
  return sizes[dtype];
}

bool is_float(cct_datatype dtype) {
  return dtype == CCT_FLOAT || dtype == CCT_DOUBLE;
}
bool is_signed(cct_datatype dtype) {
  return dtype <= CCT_INT64;
}

// The raw integer a test writes for (rank, index, salt): spread over the
// whole 64-bit range so that every width sees large values.
uint64_t raw_value(int rank, std::size_t i, int salt) {
  uint64_t x = (uint64_t(rank) + 1) * 0x9E3779B97F4A7C15ull ^
               (uint64_t(i) * 0xBF58476D1CE4E5B9ull) ^ (uint64_t(salt) * 0x94D049BB133111EBull);
  x ^= x >> 31;
  return x * 0xD6E8FEB86647C9DDull;
}

int64_t small_value(int rank, std::size_t i, int salt) {
  return int64_t(raw_value(rank, i, salt) % 5) - 2;
}

// Reads element i as a 64-bit integer, sign-extended for signed types.
int64_t load_int(const unsigned char* p, cct_datatype dtype) {
  switch (dtype) {
    case CCT_INT8: {
      int8_t v;
      std::memcpy(&v, p, 1);
      return v;
    }
    case CCT_INT16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case CCT_INT32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case CCT_UINT8: {
      uint8_t v;
      std::memcpy(&v, p, 1);
      return v;
    }
    case CCT_UINT16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case CCT_UINT32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

// Stores the low width bits: this is the wrap-around.
void store_int(unsigned char* p, cct_datatype dtype, uint64_t v) {
  std::memcpy(p, &v, width(dtype));
}

double load_float(const unsigned char* p, cct_datatype dtype) {
  if (dtype == CCT_FLOAT) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  double v;
  std::memcpy(&v, p, 8);
  return v;
}

void store_float(unsigned char* p, cct_datatype dtype, double v) {
  if (dtype == CCT_FLOAT) {
    float f = float(v);
    std::memcpy(p, &f, 4);
    return;
  }
  std::memcpy(p, &v, 8);
}

bool int_less(int64_t a, int64_t b, cct_datatype dtype) {
  return is_signed(dtype) ? a < b : uint64_t(a) < uint64_t(b);
}

}  // namespace

void fill(void* buf, std::size_t count, cct_datatype dtype, int rank, int salt) {
  auto* p = static_cast<unsigned char*>(buf);
  for (std::size_t i = 0; i < count; ++i, p += width(dtype)) {
    if (is_float(dtype))
      store_float(p, dtype, double(small_value(rank, i, salt)));
    else
      store_int(p, dtype, raw_value(rank, i, salt));
  }
}

void expected_range(void* out, std::size_t count, cct_datatype dtype, cct_op op, int from, int to,
                    std::size_t first, int salt) {
  auto* p = static_cast<unsigned char*>(out);
  std::vector<unsigned char> one(width(dtype));
  for (std::size_t k = 0; k < count; ++k, p += width(dtype)) {
    const std::size_t i = first + k;
    if (is_float(dtype)) {
      double acc = double(small_value(from, i, salt));
      for (int r = from + 1; r < to; ++r) {
        double v = double(small_value(r, i, salt));
        acc = op == CCT_SUM    ? acc + v
              : op == CCT_PROD ? acc * v
              : op == CCT_MIN  ? std::min(acc, v)
                               : std::max(acc, v);
      }
      store_float(p, dtype, acc);
      continue;
    }
    auto value_of = [&](int r) {
      store_int(one.data(), dtype, raw_value(r, i, salt));
      return load_int(one.data(), dtype);
    };
    int64_t acc = value_of(from);
    for (int r = from + 1; r < to; ++r) {
      int64_t v = value_of(r);
      if (op == CCT_SUM)
        acc = int64_t(uint64_t(acc) + uint64_t(v));
      else if (op == CCT_PROD)
        acc = int64_t(uint64_t(acc) * uint64_t(v));
      else if (op == CCT_MIN)
        acc = int_less(v, acc, dtype) ? v : acc;
      else
        acc = int_less(acc, v, dtype) ? v : acc;
      // Re-read through the type so comparisons see the wrapped value.
      store_int(one.data(), dtype, uint64_t(acc));
      acc = load_int(one.data(), dtype);
    }
    store_int(p, dtype, uint64_t(acc));
  }
}

void expected_reduction(void* out, std::size_t count, cct_datatype dtype, cct_op op, int ranks,
                        int salt) {
  expected_range(out, count, dtype, op, 0, ranks, 0, salt);
}

std::string compare(const void* got, const void* want, std::size_t count, cct_datatype dtype) {
  const auto* g = static_cast<const unsigned char*>(got);
  const auto* w = static_cast<const unsigned char*>(want);
  const std::size_t n = width(dtype);
  for (std::size_t i = 0; i < count; ++i) {
    if (std::memcmp(g + i * n, w + i * n, n) == 0) continue;
    std::ostringstream os;
    os << "element " << i << " of " << count << ": got ";
    if (is_float(dtype))
      os << load_float(g + i * n, dtype) << " want " << load_float(w + i * n, dtype);
    else
      os << load_int(g + i * n, dtype) << " want " << load_int(w + i * n, dtype);
    return os.str();
  }
  return "";
}

std::vector<unsigned char> buffer(std::size_t count, cct_datatype dtype) {
  return std::vector<unsigned char>(count * width(dtype), 0);
}

}  // namespace cct::test
