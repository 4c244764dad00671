#include "cct/host_staging.hpp"

#include <algorithm>
#include <string>

#include "cct/collectives.hpp"
#include "cct/device_memory.hpp"
#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"

namespace cct {
namespace {

// A copy between device and host memory, complete on return.
void copy(cct_transport_instance* device, void* dst, const void* src, std::size_t bytes,
          cct_copy_kind kind) {
  copy_and_wait(device, dst, src, bytes, kind, "staging device memory through the host");
}

void* grown(std::vector<unsigned char>& scratch, std::size_t bytes) {
  if (scratch.size() < bytes) scratch.resize(bytes);
  return scratch.data();
}

// The elements of recvbuf a call reads or writes: its extent, and in the
// in-place form also the input it finds there (reduce_scatter's is the
// whole input, larger than its result).
std::size_t recv_elements(const cct_coll_args& args, int rank, int size) {
  const CollectiveInfo& row = collective_info(args.collective);
  std::size_t elements = row.extent(args, rank, size).recv;
  if (args.sendbuf == CCT_IN_PLACE && row.in_place == InPlaceMark::kSend) {
    const Region input = row.in_place_input(args, rank, size);
    elements = std::max(elements, input.offset + input.count);
  }
  return elements;
}

}  // namespace

cct_coll_args HostStaging::stage(const cct_coll_args& args, int rank, int size,
                                 cct_transport_instance* device) {
  const Extent extent{collective_info(args.collective).extent(args, rank, size).send,
                      recv_elements(args, rank, size)};
  const std::size_t element = sdk::dtype_size(args.dtype);
  cct_coll_args staged = args;
  device_recv_ = nullptr;
  if (args.sendmem == CCT_MEMORY_DEVICE && args.sendbuf != CCT_IN_PLACE && extent.send > 0) {
    const std::size_t bytes = extent.send * element;
    staged.sendbuf = grown(send_, bytes);
    copy(device, send_.data(), args.sendbuf, bytes, CCT_COPY_DEVICE_TO_HOST);
  }
  if (args.recvmem == CCT_MEMORY_DEVICE && args.recvbuf != CCT_IN_PLACE && extent.recv > 0) {
    recv_bytes_ = extent.recv * element;
    staged.recvbuf = grown(recv_, recv_bytes_);
    copy(device, recv_.data(), args.recvbuf, recv_bytes_, CCT_COPY_DEVICE_TO_HOST);
    device_recv_ = args.recvbuf;
  }
  staged.sendmem = staged.recvmem = CCT_MEMORY_HOST;
  return staged;
}

void HostStaging::unstage(cct_transport_instance* device) {
  if (device_recv_ != nullptr)
    copy(device, device_recv_, recv_.data(), recv_bytes_, CCT_COPY_HOST_TO_DEVICE);
  device_recv_ = nullptr;
}

}  // namespace cct
