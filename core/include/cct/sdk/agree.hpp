// Ranks that each judged something alone (a probe, a local call that
// failed) agree before they go on together, so that none goes on to wait
// for a rank that stopped. The host uses it (cct::agree, bootstrap.hpp);
// so may a transport's open(), over its cct_bootstrap.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace cct::sdk {

// `failure`: this rank's reason it cannot go on, "" where it can.
// Collective over `size` ranks through allgather(send, recv, bytes) (every
// rank's bytes in rank order). Returns "" where every rank passed "", else
// "<what> on rank <r>: <its reason>" for the lowest such rank ("<what>:
// <reason>" on one rank), the same on every rank; reasons are cut to 255
// bytes.
template <class Allgather>
std::string first_failure(int size, const std::string& failure, const std::string& what,
                          Allgather&& allgather) {
  struct Verdict {
    char failed = 0;
    char why[255] = "";
  } mine;
  if (!failure.empty()) {
    mine.failed = 1;
    std::snprintf(mine.why, sizeof mine.why, "%s", failure.c_str());
  }
  std::vector<Verdict> all(static_cast<std::size_t>(size));
  allgather(&mine, all.data(), sizeof mine);
  for (std::size_t r = 0; r < all.size(); ++r)
    if (all[r].failed)
      return what + (all.size() > 1 ? " on rank " + std::to_string(r) : "") + ": " +
             std::string(all[r].why, strnlen(all[r].why, sizeof all[r].why));
  return "";
}

}  // namespace cct::sdk
