#include "mpi_types.hpp"

#include <climits>
#include <cstdint>

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

}  // namespace

std::optional<cct_datatype> datatype_of(MPI_Datatype type) {
  // MPI_Datatype handles are pointers in Open MPI, not constants: no switch.
  const struct {
    MPI_Datatype mpi;
    cct_datatype cct;
  } table[] = {
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

}  // namespace cct::interposer
