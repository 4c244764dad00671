// Test data and reference results, computed independently of the plugins.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cct/abi/common.h"

namespace cct::test {

// Deterministic contents for element i of the buffer rank `rank` contributes
// in test case `salt`. Integers use their whole range (so sums and products
// wrap); floating point gets small integers in [-2, 2] (so every sum and
// product of up to 8 ranks is exact whatever the order of operations).
void fill(void* buf, std::size_t count, cct_datatype dtype, int rank, int salt);

// Elements [first, first + count) of the reduction over ranks [from, to)
// of fill(..., r, salt) (one rank: its own values), in rank order, into
// out[0, count). Computed element by element in 64-bit arithmetic and
// wrapped to the type's width.
void expected_range(void* out, std::size_t count, cct_datatype dtype, cct_op op, int from, int to,
                    std::size_t first, int salt);

// The reduction over ranks 0..ranks-1 of fill(..., r, salt), computed
// element by element in 64-bit arithmetic and wrapped to the type's width.
void expected_reduction(void* out, std::size_t count, cct_datatype dtype, cct_op op, int ranks,
                        int salt);

// "" when equal, else the first differing element and both values.
std::string compare(const void* got, const void* want, std::size_t count, cct_datatype dtype);

// A buffer of count elements of dtype (bytes, zeroed).
std::vector<unsigned char> buffer(std::size_t count, cct_datatype dtype);

}  // namespace cct::test
