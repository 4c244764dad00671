// What the tests of the collective algorithms share: building a call's
// arguments, and running an algorithm over the suite's rank counts and its
// parameter candidates.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cct/communicator.hpp"

namespace cct::test {

// The arguments of one call, as the host fills them.
cct_coll_args coll_args(cct_collective c, const void* sendbuf, void* recvbuf, std::size_t count,
                        cct_datatype dtype, int root, uint32_t tag, cct_op op = CCT_SUM);

// Runs body on one plan per launch: on 1, 2, 3, 4, 5 and 8 ranks with the
// default parameters, then on 4 ranks once per other candidate of each
// parameter (the others at their defaults). Each launch is one Catch2
// REQUIRE (the first failure ends the test case) that names the algorithm,
// the rank count and the parameter values.
void sweep(cct_collective c, std::string_view name,
           const std::function<void(Communicator&, Plan&)>& body);

// On a rank: checks that the algorithm refuses these parameter values, both
// in can_use (with exactly `why`) and when a plan is prepared.
void expect_refused(Communicator& comm, cct_collective c, std::string_view name,
                    const std::vector<int64_t>& params, const std::string& why);

}  // namespace cct::test
