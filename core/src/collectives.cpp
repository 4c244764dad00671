// The table of collectives (cct/collectives.hpp): one row per collective,
// with the few functions its row needs. Counts are those of cct_coll_args
// (cct/abi/algorithm.h), whose comment states each collective's buffers.
#include "cct/collectives.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"

namespace cct {
namespace {

std::size_t n_of(int size) {
  return static_cast<std::size_t>(size);
}

// ---- size keys --------------------------------------------------------

std::size_t no_bytes(const cct_coll_args&, int) {
  return 0;
}

// One block, one vector or one rank's share: count elements.
std::size_t count_bytes(const cct_coll_args& a, int) {
  return a.count * sdk::dtype_size(a.dtype);
}

// The elements of all ranks' blocks of a recvcounts array.
std::size_t total_of(const std::size_t* counts, int size) {
  std::size_t total = 0;
  for (int r = 0; r < size; ++r) total += counts[r];
  return total;
}

// The average block of a recvcounts array (rounded down): equal counts
// give the same key as the collective without v.
std::size_t average_block_bytes(const cct_coll_args& a, int size) {
  return total_of(a.recvcounts, size) / n_of(size) * sdk::dtype_size(a.dtype);
}

// The end of the furthest block of counts at displacements (0 for NULL
// arrays: a rank that passes none).
std::size_t span_of(const std::size_t* counts, const std::size_t* displs, int size) {
  std::size_t end = 0;
  for (int r = 0; counts != nullptr && r < size; ++r) end = std::max(end, displs[r] + counts[r]);
  return end;
}

// alltoallv's share: what this rank sends, in all.
std::size_t sent_bytes(const cct_coll_args& a, int size) {
  return total_of(a.sendcounts, size) * sdk::dtype_size(a.dtype);
}

// The parts an agreed total is the sum of: one block per rank, or one per
// pair of ranks.
std::size_t per_rank(int size) {
  return n_of(size);
}
std::size_t per_pair(int size) {
  return n_of(size) * n_of(size);
}

// Where rank r's block starts in a reduce_scatter's input: after the
// blocks of the ranks before it.
std::size_t block_start(const cct_coll_args& a, int r) {
  return total_of(a.recvcounts, r);
}

// ---- extents ----------------------------------------------------------

Extent nothing(const cct_coll_args&, int, int) {
  return {};
}
Extent bcast_extent(const cct_coll_args& a, int, int) {
  return {0, a.count};
}
Extent gather_extent(const cct_coll_args& a, int rank, int size) {
  return {a.count, rank == a.root ? n_of(size) * a.count : 0};
}
Extent scatter_extent(const cct_coll_args& a, int rank, int size) {
  return {rank == a.root ? n_of(size) * a.count : 0, a.count};
}
Extent reduce_extent(const cct_coll_args& a, int rank, int) {
  return {a.count, rank == a.root ? a.count : 0};
}
Extent vector_extent(const cct_coll_args& a, int, int) {
  return {a.count, a.count};
}
Extent allgather_extent(const cct_coll_args& a, int, int size) {
  return {a.count, n_of(size) * a.count};
}
Extent alltoall_extent(const cct_coll_args& a, int, int size) {
  return {n_of(size) * a.count, n_of(size) * a.count};
}

Extent reduce_scatter_block_extent(const cct_coll_args& a, int, int size) {
  return {n_of(size) * a.count, a.count};
}
Extent reduce_scatter_extent(const cct_coll_args& a, int rank, int size) {
  return {total_of(a.recvcounts, size), a.recvcounts[rank]};
}
Extent allgatherv_extent(const cct_coll_args& a, int rank, int size) {
  return {a.recvcounts[rank], span_of(a.recvcounts, a.rdispls, size)};
}

Extent gatherv_extent(const cct_coll_args& a, int rank, int size) {
  return {a.count, rank == a.root ? span_of(a.recvcounts, a.rdispls, size) : 0};
}
Extent scatterv_extent(const cct_coll_args& a, int rank, int size) {
  return {rank == a.root ? span_of(a.sendcounts, a.sdispls, size) : 0, a.count};
}
Extent alltoallv_extent(const cct_coll_args& a, int, int size) {
  return {span_of(a.sendcounts, a.sdispls, size), span_of(a.recvcounts, a.rdispls, size)};
}

// ---- where the in-place input lies in recvbuf ------------------------

Region no_region(const cct_coll_args&, int, int) {
  return {};
}
Region first_block(const cct_coll_args& a, int, int) {
  return {0, a.count};
}
Region root_block(const cct_coll_args& a, int, int) {
  return {static_cast<std::size_t>(a.root) * a.count, a.count};
}
Region own_block(const cct_coll_args& a, int rank, int) {
  return {static_cast<std::size_t>(rank) * a.count, a.count};
}
Region all_blocks(const cct_coll_args& a, int, int size) {
  return {0, n_of(size) * a.count};
}

Region whole_input(const cct_coll_args& a, int rank, int size) {
  return {0, reduce_scatter_extent(a, rank, size).send};
}
Region own_displaced_block(const cct_coll_args& a, int rank, int) {
  return {a.rdispls[rank], a.recvcounts[rank]};
}

Region root_displaced_block(const cct_coll_args& a, int, int) {
  return {a.rdispls[a.root], a.recvcounts[a.root]};
}
Region received_span(const cct_coll_args& a, int rank, int size) {
  return {0, alltoallv_extent(a, rank, size).recv};
}

// ---- expected results ------------------------------------------------

using Calls = std::span<const cct_coll_args>;

int size_of(Calls calls) {
  return static_cast<int>(calls.size());
}

std::vector<Piece> none(Calls, int) {
  return {};
}

// The root's block, everywhere.
std::vector<Piece> from_root(Calls calls, int) {
  const cct_coll_args& a = calls[0];
  return {{0, a.count, a.root, a.root + 1, 0}};
}

// Every rank's block that starts `taken_at` elements into its input, at the
// receiver in rank order.
std::vector<Piece> blocks_in_rank_order(Calls calls, std::size_t taken_at) {
  std::vector<Piece> out;
  const std::size_t count = calls[0].count;
  for (int from = 0; from < size_of(calls); ++from)
    out.push_back({from * count, count, from, from + 1, taken_at});
  return out;
}

std::vector<Piece> gathered(Calls calls, int rank) {
  if (rank != calls[0].root) return {};
  return blocks_in_rank_order(calls, 0);
}

std::vector<Piece> scattered(Calls calls, int rank) {
  const cct_coll_args& a = calls[0];
  return {{0, a.count, a.root, a.root + 1, rank * a.count}};
}

std::vector<Piece> reduced_at_root(Calls calls, int rank) {
  const cct_coll_args& a = calls[0];
  if (rank != a.root) return {};
  return {{0, a.count, 0, size_of(calls), 0}};
}

std::vector<Piece> reduced(Calls calls, int) {
  return {{0, calls[0].count, 0, size_of(calls), 0}};
}

std::vector<Piece> gathered_by_all(Calls calls, int) {
  return blocks_in_rank_order(calls, 0);
}

std::vector<Piece> exchanged(Calls calls, int rank) {
  return blocks_in_rank_order(calls, rank * calls[0].count);
}

std::vector<Piece> block_of_reduction(Calls calls, int rank) {
  const std::size_t count = calls[0].count;
  return {{0, count, 0, size_of(calls), rank * count}};
}

std::vector<Piece> counted_block_of_reduction(Calls calls, int rank) {
  const cct_coll_args& a = calls[rank];
  return {{0, a.recvcounts[rank], 0, size_of(calls), block_start(a, rank)}};
}

std::vector<Piece> gathered_at_displacements(Calls calls, int rank) {
  std::vector<Piece> out;
  const cct_coll_args& mine = calls[rank];
  for (int from = 0; from < size_of(calls); ++from)
    out.push_back({mine.rdispls[from], mine.recvcounts[from], from, from + 1, 0});
  return out;
}

std::vector<Piece> gathered_at_root_displacements(Calls calls, int rank) {
  if (rank != calls[rank].root) return {};
  return gathered_at_displacements(calls, rank);
}

std::vector<Piece> scattered_from_displacements(Calls calls, int rank) {
  const cct_coll_args& root = calls[calls[rank].root];
  return {{0, calls[rank].count, root.root, root.root + 1, root.sdispls[rank]}};
}

// Block r of every rank, from where that rank keeps it, to where this rank
// takes it.
std::vector<Piece> exchanged_at_displacements(Calls calls, int rank) {
  std::vector<Piece> out;
  const cct_coll_args& mine = calls[rank];
  for (int from = 0; from < size_of(calls); ++from)
    out.push_back(
        {mine.rdispls[from], mine.recvcounts[from], from, from + 1, calls[from].sdispls[rank]});
  return out;
}

// Ranks 0..rank inclusive (scan), or before rank (exscan; none on rank 0).
std::vector<Piece> prefix(Calls calls, int rank) {
  return {{0, calls[0].count, 0, rank + 1, 0}};
}
std::vector<Piece> exclusive_prefix(Calls calls, int rank) {
  if (rank == 0) return {};
  return {{0, calls[0].count, 0, rank, 0}};
}

// The rows, in cct_collective order.
constexpr CollectiveInfo kCollectives[] = {
    {.id = CCT_BARRIER,
     .name = "barrier",
     .mpi_name = "MPI_Barrier",
     .rooted = false,
     .reduction = false,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "dissemination",
     .size_key = "none: 0",
     .sized = false,
     .message_bytes = no_bytes,
     .key_parts = nullptr,
     .extent = nothing,
     .in_place = InPlaceMark::kNone,
     .in_place_root_only = false,
     .in_place_input = no_region,
     .expected = none},
    {.id = CCT_BCAST,
     .name = "bcast",
     .mpi_name = "MPI_Bcast",
     .rooted = true,
     .reduction = false,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "binomial",
     .size_key = "the buffer",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = bcast_extent,
     .in_place = InPlaceMark::kAlways,
     .in_place_root_only = true,
     .in_place_input = first_block,
     .expected = from_root},
    {.id = CCT_GATHER,
     .name = "gather",
     .mpi_name = "MPI_Gather",
     .rooted = true,
     .reduction = false,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "binomial",
     .size_key = "one rank's block",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = gather_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = true,
     .in_place_input = root_block,
     .expected = gathered},
    {.id = CCT_SCATTER,
     .name = "scatter",
     .mpi_name = "MPI_Scatter",
     .rooted = true,
     .reduction = false,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "binomial",
     .size_key = "one rank's block",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = scatter_extent,
     .in_place = InPlaceMark::kRecv,
     .in_place_root_only = true,
     .in_place_input = no_region,
     .expected = scattered},
    {.id = CCT_REDUCE,
     .name = "reduce",
     .mpi_name = "MPI_Reduce",
     .rooted = true,
     .reduction = true,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "binomial",
     .size_key = "the vector",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = reduce_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = true,
     .in_place_input = first_block,
     .expected = reduced_at_root},
    {.id = CCT_ALLREDUCE,
     .name = "allreduce",
     .mpi_name = "MPI_Allreduce",
     .rooted = false,
     .reduction = true,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "recursive_doubling",
     .size_key = "the vector",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = vector_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = first_block,
     .expected = reduced},
    {.id = CCT_ALLGATHER,
     .name = "allgather",
     .mpi_name = "MPI_Allgather",
     .rooted = false,
     .reduction = false,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "ring",
     .size_key = "one rank's block",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = allgather_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = own_block,
     .expected = gathered_by_all},
    {.id = CCT_ALLTOALL,
     .name = "alltoall",
     .mpi_name = "MPI_Alltoall",
     .rooted = false,
     .reduction = false,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "pairwise",
     .size_key = "the bytes sent to each peer",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = alltoall_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = all_blocks,
     .expected = exchanged},
    {.id = CCT_REDUCE_SCATTER_BLOCK,
     .name = "reduce_scatter_block",
     .mpi_name = "MPI_Reduce_scatter_block",
     .rooted = false,
     .reduction = true,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "recursive_halving",
     .size_key = "one rank's block of the result",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = reduce_scatter_block_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = all_blocks,
     .expected = block_of_reduction},
    {.id = CCT_REDUCE_SCATTER,
     .name = "reduce_scatter",
     .mpi_name = "MPI_Reduce_scatter",
     .rooted = false,
     .reduction = true,
     .arrays = kRecvCounts,
     .arrays_at_root = false,
     .default_algorithm = "ring",
     .size_key = "the average block of the result: the input's bytes / ranks",
     .sized = true,
     .message_bytes = average_block_bytes,
     .key_parts = nullptr,
     .extent = reduce_scatter_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = whole_input,
     .expected = counted_block_of_reduction},
    {.id = CCT_ALLGATHERV,
     .name = "allgatherv",
     .mpi_name = "MPI_Allgatherv",
     .rooted = false,
     .reduction = false,
     .arrays = kRecvCounts | kRecvDispls,
     .arrays_at_root = false,
     .default_algorithm = "ring",
     .size_key = "the average block: the bytes every rank receives / ranks",
     .sized = true,
     .message_bytes = average_block_bytes,
     .key_parts = nullptr,
     .extent = allgatherv_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = own_displaced_block,
     .expected = gathered_at_displacements},
    {.id = CCT_SCAN,
     .name = "scan",
     .mpi_name = "MPI_Scan",
     .rooted = false,
     .reduction = true,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "recursive_doubling",
     .size_key = "the vector",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = vector_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = first_block,
     .expected = prefix},
    {.id = CCT_EXSCAN,
     .name = "exscan",
     .mpi_name = "MPI_Exscan",
     .rooted = false,
     .reduction = true,
     .arrays = 0,
     .arrays_at_root = false,
     .default_algorithm = "recursive_doubling",
     .size_key = "the vector",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = nullptr,
     .extent = vector_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = first_block,
     .expected = exclusive_prefix},
    {.id = CCT_GATHERV,
     .name = "gatherv",
     .mpi_name = "MPI_Gatherv",
     .rooted = true,
     .reduction = false,
     .arrays = kRecvCounts | kRecvDispls,
     .arrays_at_root = true,
     .default_algorithm = "linear",
     .size_key = "the average block: the bytes the root receives / ranks (agreed)",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = per_rank,
     .extent = gatherv_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = true,
     .in_place_input = root_displaced_block,
     .expected = gathered_at_root_displacements},
    {.id = CCT_SCATTERV,
     .name = "scatterv",
     .mpi_name = "MPI_Scatterv",
     .rooted = true,
     .reduction = false,
     .arrays = kSendCounts | kSendDispls,
     .arrays_at_root = true,
     .default_algorithm = "linear",
     .size_key = "the average block: the bytes the root sends / ranks (agreed)",
     .sized = true,
     .message_bytes = count_bytes,
     .key_parts = per_rank,
     .extent = scatterv_extent,
     .in_place = InPlaceMark::kRecv,
     .in_place_root_only = true,
     .in_place_input = no_region,
     .expected = scattered_from_displacements},
    {.id = CCT_ALLTOALLV,
     .name = "alltoallv",
     .mpi_name = "MPI_Alltoallv",
     .rooted = false,
     .reduction = false,
     .arrays = kSendCounts | kSendDispls | kRecvCounts | kRecvDispls,
     .arrays_at_root = false,
     .default_algorithm = "pairwise",
     .size_key = "the average block of a pair: the bytes all ranks send / ranks^2 (agreed)",
     .sized = true,
     .message_bytes = sent_bytes,
     .key_parts = per_pair,
     .extent = alltoallv_extent,
     .in_place = InPlaceMark::kSend,
     .in_place_root_only = false,
     .in_place_input = received_span,
     .expected = exchanged_at_displacements},
};

constexpr bool in_enum_order() {
  for (std::size_t c = 0; c < std::size(kCollectives); ++c)
    if (kCollectives[c].id != static_cast<cct_collective>(c)) return false;
  return std::size(kCollectives) == CCT_COLLECTIVE_COUNT;
}
static_assert(in_enum_order(), "every cct_collective needs its row, in enum order");

}  // namespace

std::span<const CollectiveInfo> collectives() {
  return kCollectives;
}

const CollectiveInfo& collective_info(cct_collective c) {
  if (c < 0 || c >= CCT_COLLECTIVE_COUNT)
    throw Error("collective " + std::to_string(static_cast<int>(c)) + " is unknown to this host",
                CCT_ERR_INVALID_ARG);
  return kCollectives[c];
}

const CollectiveInfo* find_collective(std::string_view name) {
  const auto row = std::find_if(std::begin(kCollectives), std::end(kCollectives),
                                [&](const CollectiveInfo& c) { return name == c.name; });
  return row == std::end(kCollectives) ? nullptr : row;
}

std::size_t message_bytes(const cct_coll_args& args, int size) {
  return collective_info(args.collective).message_bytes(args, size);
}

cct_coll_args make_call(cct_collective c, const void* send, void* recv, std::size_t count,
                        cct_datatype dtype, cct_op op, int root, uint32_t tag) {
  return cct_coll_args{.struct_size = sizeof(cct_coll_args),
                       .abi_version = CCT_ABI_VERSION,
                       .collective = c,
                       .sendbuf = send,
                       .recvbuf = recv,
                       .count = count,
                       .dtype = dtype,
                       .op = op,
                       .root = root,
                       .tag = tag};
}

cct_coll_args as_this_build(const cct_coll_args* args) {
  constexpr std::size_t kVersion1 = offsetof(cct_coll_args, sendcounts);
  if (args == nullptr) throw Error("the call's arguments are NULL", CCT_ERR_INVALID_ARG);
  if (args->struct_size < kVersion1)
    throw Error("the call's cct_coll_args.struct_size is " + std::to_string(args->struct_size) +
                    ", smaller than any version's",
                CCT_ERR_INVALID_ARG);
  const auto outside = [](int value, int count) { return value < 0 || value >= count; };
  if (outside(raw_enum(args->collective), CCT_COLLECTIVE_COUNT))
    throw Error("collective " + std::to_string(raw_enum(args->collective)) + " is unknown",
                CCT_ERR_INVALID_ARG);
  if (outside(raw_enum(args->dtype), CCT_DATATYPE_COUNT))
    throw Error("datatype " + std::to_string(raw_enum(args->dtype)) + " is unknown",
                CCT_ERR_INVALID_ARG);
  if (collective_info(args->collective).reduction && outside(raw_enum(args->op), CCT_OP_COUNT))
    throw Error("operator " + std::to_string(raw_enum(args->op)) + " is unknown",
                CCT_ERR_INVALID_ARG);
  cct_coll_args out{};
  std::memcpy(&out, args, std::min<std::size_t>(args->struct_size, sizeof out));
  out.struct_size = sizeof out;
  out.abi_version = CCT_ABI_VERSION;
  return out;
}

}  // namespace cct
