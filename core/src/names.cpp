// Names of the ABI enums, as profiles, logs and ccinfo print them (the
// collectives' are in their table).
#include <cstring>

#include "cct/collectives.hpp"
#include "cct/error.hpp"

namespace cct {
namespace {

const char* const kDatatypes[] = {"int8",   "int16",  "int32",  "int64", "uint8",
                                  "uint16", "uint32", "uint64", "float", "double"};
const char* const kOps[] = {"sum", "prod", "min", "max"};
const char* const kStatuses[] = {"ok",        "unsupported", "invalid argument", "out of memory",
                                 "transport", "internal",    "abi mismatch",     "timeout"};
const char* const kLevels[] = {"l2", "l3", "numa", "package", "node"};
const char* const kCapabilities[] = {"p2p",    "shm",    "mcast",       "aggregate",
                                     "atomic", "device", "single_copy", "library"};
const char* const kLimits[] = {"pow2_only", "commutative_only", "in_place", "needs_levels",
                               "device_memory"};

// Names of the set bits of `bits`, comma separated.
template <std::size_t N>
std::string bit_names(const char* const (&table)[N], uint64_t bits) {
  std::string out;
  for (std::size_t bit = 0; bit < N; ++bit) {
    if (!(bits & (uint64_t{1} << bit))) continue;
    if (!out.empty()) out += ",";
    out += table[bit];
  }
  return out.empty() ? "none" : out;
}

template <std::size_t N>
const char* name_in(const char* const (&table)[N], int value) {
  return value >= 0 && static_cast<std::size_t>(value) < N ? table[value] : "unknown";
}

}  // namespace

const char* collective_name(cct_collective c) {
  return c >= 0 && c < CCT_COLLECTIVE_COUNT ? collective_info(c).name : "unknown";
}
const char* datatype_name(cct_datatype d) {
  return name_in(kDatatypes, d);
}
const char* op_name(cct_op o) {
  return name_in(kOps, o);
}
const char* status_name(cct_status s) {
  return name_in(kStatuses, s);
}
const char* level_name(int kind) {
  return name_in(kLevels, kind);
}

std::string capability_names(uint64_t caps) {
  return bit_names(kCapabilities, caps);
}
std::string limit_names(uint32_t limits) {
  return bit_names(kLimits, limits);
}

bool parse_datatype(const std::string& name, cct_datatype* out) {
  for (int d = 0; d < CCT_DATATYPE_COUNT; ++d)
    if (name == kDatatypes[d]) {
      *out = static_cast<cct_datatype>(d);
      return true;
    }
  return false;
}

bool parse_collective(const std::string& name, cct_collective* out) {
  const CollectiveInfo* row = find_collective(name);
  if (row != nullptr) *out = row->id;
  return row != nullptr;
}

}  // namespace cct
