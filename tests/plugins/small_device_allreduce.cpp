// A test plugin: an allreduce on device memory that takes calls of at most
// 16 elements and refuses larger ones, so that a device rule's fallbacks
// (host algorithms, run on host copies) serve the rest. Every rank
// exchanges its input with every other and reduces on the device.
#include <string>

#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/device.hpp"

namespace {

class SmallDeviceAllreduce {
 public:
  static constexpr cct::sdk::Info info{
      .name = "small_device",
      .collective = CCT_ALLREDUCE,
      .required_caps = CCT_CAP_P2P | CCT_CAP_DEVICE,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE | CCT_LIMIT_DEVICE_MEMORY};

  static void check(const cct::sdk::Comm&, const cct_coll_args& args, std::span<const int64_t>) {
    if (args.count > 16)
      throw cct::sdk::Unsupported("small_device takes 16 elements at most, not " +
                                  std::to_string(args.count));
  }
  SmallDeviceAllreduce(const cct::sdk::Comm& comm, std::span<const int64_t>)
      : comm_(comm), device_(comm), input_(device_), incoming_(device_) {}

  void run(const cct_coll_args& a) {
    const std::size_t bytes = a.count * cct::sdk::dtype_size(a.dtype);
    std::byte* mine = input_.get(bytes);
    const void* in = a.sendbuf == CCT_IN_PLACE ? a.recvbuf : a.sendbuf;
    device_.copy(mine, in, bytes, CCT_COPY_DEVICE_TO_DEVICE);
    device_.copy(a.recvbuf, in, bytes, CCT_COPY_DEVICE_TO_DEVICE);
    device_.synchronize();
    std::byte* theirs = incoming_.get(bytes);
    for (int step = 1; step < comm_.size(); ++step) {
      const int to = (comm_.rank() + step) % comm_.size();
      const int from = (comm_.rank() - step + comm_.size()) % comm_.size();
      comm_.sendrecv(mine, bytes, to, theirs, bytes, from, a.tag);
      device_.reduce(a.recvbuf, theirs, a.count, a.dtype, a.op);
      device_.synchronize();
    }
  }

 private:
  cct::sdk::Comm comm_;
  cct::sdk::Device device_;
  cct::sdk::DeviceScratch input_, incoming_;
};

}  // namespace

CCT_SDK_EXPORT_ALGORITHMS(SmallDeviceAllreduce)
