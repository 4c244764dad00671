#include "mpi_types.hpp"

#include <climits>
#include <cstdint>
#include <vector>

#include "cct/sdk/datatype.hpp"

namespace cct::interposer {
namespace {

// The cct type of a C integer type of `bytes` bytes.
template <class T>
constexpr cct_datatype integer() {
  constexpr bool is_signed = T(-1) < T(0);
  switch (sizeof(T)) {
    case 1: return is_signed ? CCT_INT8 : CCT_UINT8;
    case 2: return is_signed ? CCT_INT16 : CCT_UINT16;
    case 4: return is_signed ? CCT_INT32 : CCT_UINT32;
    default: return is_signed ? CCT_INT64 : CCT_UINT64;
  }
}

struct TypeEntry {
  MPI_Datatype mpi;
  cct_datatype cct;
};

// A Fortran type's size is the Fortran compiler's (INTEGER may be 4 or 8
// bytes), known to MPI, not to C: asked once, after MPI_Init. A type of a
// size cct has no number for (or 0: a library built without Fortran) is
// left out, and left to the library.
void add_fortran(std::vector<TypeEntry>& table, MPI_Datatype type, bool real) {
  int size = 0;
  PMPI_Type_size(type, &size);
  if (real) {
    if (size == 4) table.push_back({type, CCT_FLOAT});
    if (size == 8) table.push_back({type, CCT_DOUBLE});
    return;
  }
  switch (size) {
    case 1: table.push_back({type, CCT_INT8}); break;
    case 2: table.push_back({type, CCT_INT16}); break;
    case 4: table.push_back({type, CCT_INT32}); break;
    case 8: table.push_back({type, CCT_INT64}); break;
    default: break;
  }
}

std::vector<TypeEntry> make_table() {
  std::vector<TypeEntry> table = {
      {MPI_CHAR, integer<char>()},
      {MPI_SIGNED_CHAR, CCT_INT8},
      {MPI_UNSIGNED_CHAR, CCT_UINT8},
      {MPI_BYTE, CCT_UINT8},
      {MPI_SHORT, integer<short>()},
      {MPI_UNSIGNED_SHORT, integer<unsigned short>()},
      {MPI_INT, integer<int>()},
      {MPI_UNSIGNED, integer<unsigned>()},
      {MPI_LONG, integer<long>()},
      {MPI_UNSIGNED_LONG, integer<unsigned long>()},
      {MPI_LONG_LONG, integer<long long>()},
      {MPI_UNSIGNED_LONG_LONG, integer<unsigned long long>()},
      {MPI_INT8_T, CCT_INT8},
      {MPI_INT16_T, CCT_INT16},
      {MPI_INT32_T, CCT_INT32},
      {MPI_INT64_T, CCT_INT64},
      {MPI_UINT8_T, CCT_UINT8},
      {MPI_UINT16_T, CCT_UINT16},
      {MPI_UINT32_T, CCT_UINT32},
      {MPI_UINT64_T, CCT_UINT64},
      {MPI_FLOAT, CCT_FLOAT},
      {MPI_DOUBLE, CCT_DOUBLE},
  };
  for (MPI_Datatype t : {MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8})
    add_fortran(table, t, false);
  for (MPI_Datatype t : {MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8})
    add_fortran(table, t, true);
  return table;
}

}  // namespace

std::optional<cct_datatype> datatype_of(MPI_Datatype type) {
  // MPI_Datatype handles are pointers in Open MPI, not constants: no switch.
  // Made on the first reduction (after MPI_Init), once for all threads.
  static const std::vector<TypeEntry> table = make_table();
  for (const auto& entry : table)
    if (entry.mpi == type) return entry.cct;
  return std::nullopt;
}

std::optional<cct_op> op_of(MPI_Op op) {
  if (op == MPI_SUM) return CCT_SUM;
  if (op == MPI_PROD) return CCT_PROD;
  if (op == MPI_MIN) return CCT_MIN;
  if (op == MPI_MAX) return CCT_MAX;
  return std::nullopt;
}

[[gnu::tls_model("initial-exec")]] constinit thread_local PredefinedSize last_predefined{};

bool one_byte_type(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return true;  // MPI_Type_size would raise an error: not ours
  if (const std::optional<cct_datatype> predefined = datatype_of(type)) {
    last_predefined = {type, sdk::dtype_size(*predefined) == 1};
    return last_predefined.one_byte;
  }
  int size = 0;  // a derived type, whose handle may name another type later
  return PMPI_Type_size(type, &size) == MPI_SUCCESS && size == 1;
}

}  // namespace cct::interposer
