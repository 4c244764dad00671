// The MPI interposer: how a call's data lies in memory, as the runtime
// needs to know it.
//
// The runtime moves bytes. What every rank of a collective agrees on is the
// type signature's size (MPI lets one rank send 4 x MPI_INT that another
// receives as 1 x a contiguous type, a vector, a struct or 16 x MPI_BYTE),
// never the datatype handle. So the interposer takes every datatype, as the
// bytes of its type signature: where those lie in the user's buffer in
// type-map order with no gap (MPI_INT, a contiguous or in-order struct
// type), the runtime reads and writes the buffer itself; otherwise they are
// packed into scratch (see packing.hpp).
//
// To pack fast, a datatype's map is flattened once into the runs of bytes
// one element covers, in type-map order, and kept with the type (an MPI
// attribute, dropped when the type is freed). MPI_Pack copies element by
// element, about 10 ns each on this machine; a run is one memcpy.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace cct::interposer {

// Bytes [offset, offset + length) from an element's address.
struct Run {
  MPI_Aint offset;
  MPI_Aint length;
};

// One element's type map as runs, in type-map order, adjacent runs merged.
struct TypeMap {
  std::vector<Run> runs;
  MPI_Aint run_length = 0;  // every run's length where they are all equal (a vector of
                            // doubles: 8), else 0; packing copies it as a constant
};

// count elements of one datatype.
struct Layout {
  std::size_t bytes = 0;         // the type signature's size: what travels
  MPI_Aint first = 0;            // where the first byte is, from the buffer's address (true lb)
  MPI_Aint low = 0, high = 0;    // the bytes the data lies within: [low, high) from the
                                 // buffer's address, gaps included (any extent's sign)
  MPI_Aint extent = 0;           // from one element to the next
  bool contiguous = true;        // the bytes lie at buffer + first, in type-map order, no gaps
  const TypeMap* map = nullptr;  // null: not flattened (a constructor not walked, or a
                                 // map of too many runs): MPI_Pack packs it
  bool predefined = false;       // a named type: never freed, so its handle never names another
};

// Where blocks of counts[i] elements at displacements displs[i] (i < n, in
// elements) lie: from the lowest displacement of a block that holds any to
// the end of the furthest one, one run the runtime reads or writes them in
// (empty blocks, whose displacements MPI ignores, count for nothing).
// {0, 0} where no block holds any.
struct BlockRun {
  int64_t first = 0;
  int64_t end = 0;
};
BlockRun run_of(const int* counts, const int* displs, int n);

// The layout of count elements of type, or nullopt when the arguments are
// for the MPI library to judge (a negative count, MPI_DATATYPE_NULL with a
// positive count). MPI_DATATYPE_NULL with count 0 is 0 bytes. The map
// lives as long as the type.
std::optional<Layout> layout_of(int64_t count, MPI_Datatype type);

}  // namespace cct::interposer
