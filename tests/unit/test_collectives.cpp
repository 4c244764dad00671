// The table of collectives: its rows agree with the ABI, with each other
// and with what the rest of the host reads from them.
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstring>
#include <set>
#include <string>

#include "cct/collectives.hpp"
#include "cct/error.hpp"

namespace {

cct_coll_args call(cct_collective c, std::size_t count, cct_datatype dtype, int root = 0) {
  return cct_coll_args{.struct_size = sizeof(cct_coll_args),
                       .abi_version = CCT_ABI_VERSION,
                       .collective = c,
                       .count = count,
                       .dtype = dtype,
                       .root = root};
}

}  // namespace

TEST_CASE("collectives: one row per cct_collective, named uniquely", "[collectives]") {
  std::set<std::string> names;
  for (const cct::CollectiveInfo& row : cct::collectives()) {
    CHECK(&cct::collective_info(row.id) == &row);
    CHECK(cct::find_collective(row.name) == &row);
    CHECK(cct::collective_name(row.id) == std::string(row.name));
    CHECK(names.insert(row.name).second);
    CHECK(std::string(row.mpi_name).rfind("MPI_", 0) == 0);
  }
  CHECK(names.size() == CCT_COLLECTIVE_COUNT);
  CHECK(cct::find_collective("allgatherw") == nullptr);
  CHECK_THROWS_AS(cct::collective_info(static_cast<cct_collective>(CCT_COLLECTIVE_COUNT)),
                  cct::Error);
}

TEST_CASE("collectives: the size key of each row", "[collectives]") {
  CHECK(cct::message_bytes(call(CCT_BARRIER, 100, CCT_DOUBLE), 4) == 0);
  CHECK(cct::message_bytes(call(CCT_BCAST, 100, CCT_DOUBLE), 4) == 800);
  CHECK(cct::message_bytes(call(CCT_GATHER, 10, CCT_INT32), 4) == 40);  // one rank's block
  CHECK(cct::message_bytes(call(CCT_ALLGATHER, 10, CCT_INT16), 4) == 20);
  CHECK(cct::message_bytes(call(CCT_ALLREDUCE, 3, CCT_FLOAT), 4) == 12);  // the vector
  CHECK(cct::message_bytes(call(CCT_ALLTOALL, 5, CCT_UINT8), 4) == 5);    // to each peer
  CHECK(cct::message_bytes(call(CCT_REDUCE_SCATTER_BLOCK, 5, CCT_INT32), 4) == 20);
  CHECK(cct::message_bytes(call(CCT_SCAN, 5, CCT_INT64), 4) == 40);
  CHECK(cct::message_bytes(call(CCT_EXSCAN, 5, CCT_INT64), 4) == 40);
  // The vector forms: the average block, rounded down.
  const std::size_t counts[] = {0, 10, 3, 0};
  cct_coll_args v = call(CCT_ALLGATHERV, 0, CCT_DOUBLE);
  v.recvcounts = counts;
  CHECK(cct::message_bytes(v, 4) == 3 * 8);
  v.collective = CCT_REDUCE_SCATTER;
  CHECK(cct::message_bytes(v, 4) == 3 * 8);
}

// What a rank reads and writes, and where an in-place input lies, must
// stay inside its buffers; the expected pieces must cover only what it
// receives and read only what each sender has.
TEST_CASE("collectives: extents, in-place inputs and expected pieces agree", "[collectives]") {
  for (const cct::CollectiveInfo& row : cct::collectives())
    for (int size : {1, 3, 4})
      for (int root = 0; root < (row.rooted ? size : 1); ++root) {
        INFO(row.name << " on " << size << " ranks, root " << root);
        // Blocks of 0, 7, 14... elements, one after another (alltoallv: 7
        // each, since what i sends j is what j receives from i).
        const bool pairs = (row.arrays & cct::kSendCounts) && (row.arrays & cct::kRecvCounts);
        std::vector<std::size_t> counts, displs;
        for (int r = 0; r < size; ++r) {
          displs.push_back(r == 0 ? 0 : displs.back() + counts.back());
          counts.push_back(pairs ? 7 : 7 * static_cast<std::size_t>(r));
        }
        cct_coll_args args = call(row.id, 7, CCT_INT32, root);
        args.recvcounts = args.sendcounts = counts.data();
        args.rdispls = args.sdispls = displs.data();
        std::vector<cct_coll_args> calls(size, args);
        // gatherv and scatterv: each rank's own count is its block.
        for (int r = 0; row.arrays_at_root && r < size; ++r) calls[r].count = counts[r];
        for (int rank = 0; rank < size; ++rank) {
          const cct::Extent mine = row.extent(calls[rank], rank, size);
          const cct::Region held = row.in_place_input(calls[rank], rank, size);
          const bool may = !row.in_place_root_only || rank == root;
          if (row.in_place == cct::InPlaceMark::kSend && may) CHECK(held.count == mine.send);
          if (row.in_place == cct::InPlaceMark::kAlways)
            CHECK(held.offset + held.count <= mine.recv);
          for (const cct::Piece& p : row.expected(calls, rank)) {
            CHECK(p.out + p.count <= mine.recv);
            CHECK((0 <= p.from && p.from < p.to && p.to <= size));
            for (int from = p.from; from < p.to; ++from) {
              const cct::Extent theirs = row.extent(calls[from], from, size);
              const bool held_by_root = row.in_place == cct::InPlaceMark::kAlways;
              CHECK(p.in + p.count <= (held_by_root ? theirs.recv : theirs.send));
            }
          }
        }
      }
}

TEST_CASE("collectives: a caller's arguments of another version", "[collectives]") {
  cct_coll_args newer = call(CCT_ALLREDUCE, 9, CCT_INT64);
  const std::size_t counts[1] = {9};
  newer.recvcounts = counts;
  newer.recvmem = CCT_MEMORY_DEVICE;
  SECTION("an older build's struct: the fields it lacks read as NULL and host memory") {
    cct_coll_args older = newer;
    older.struct_size = offsetof(cct_coll_args, sendcounts);
    const cct_coll_args got = cct::as_this_build(&older);
    CHECK(got.count == 9);
    CHECK(got.dtype == CCT_INT64);
    CHECK(got.recvcounts == nullptr);
    CHECK(got.recvmem == CCT_MEMORY_HOST);
    CHECK(got.struct_size == sizeof(cct_coll_args));
  }
  SECTION("this build's struct is read whole") {
    const cct_coll_args got = cct::as_this_build(&newer);
    CHECK(got.recvcounts == counts);
    CHECK(got.recvmem == CCT_MEMORY_DEVICE);
  }
  SECTION("a C caller's value outside an enum is refused before it is loaded as the enum") {
    const int collective = 99, datatype = 42;
    cct_coll_args bad = newer;
    std::memcpy(&bad.collective, &collective, sizeof collective);
    CHECK_THROWS_WITH(cct::as_this_build(&bad), Catch::Contains("collective 99 is unknown"));
    bad = newer;
    std::memcpy(&bad.dtype, &datatype, sizeof datatype);
    CHECK_THROWS_WITH(cct::as_this_build(&bad), Catch::Contains("datatype 42 is unknown"));
  }
  SECTION("NULL, or smaller than version 1's, is refused") {
    CHECK_THROWS_AS(cct::as_this_build(nullptr), cct::Error);
    cct_coll_args tiny = newer;
    tiny.struct_size = 8;
    CHECK_THROWS_AS(cct::as_this_build(&tiny), cct::Error);
  }
}
