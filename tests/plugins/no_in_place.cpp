// A test plugin: an allreduce and an alltoall that do not declare in-place
// support and fail if handed CCT_IN_PLACE, so the runtime's conversion of
// in-place calls into out-of-place ones is what the tests exercise.
#include <cstring>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace {

void refuse_in_place(const cct_coll_args& a) {
  if (a.sendbuf == CCT_IN_PLACE || a.recvbuf == CCT_IN_PLACE)
    throw std::invalid_argument("no_in_place: handed CCT_IN_PLACE");
}

// Every rank sends its vector to every other and reduces what it gets.
class NoInPlaceAllreduce {
 public:
  static constexpr cct::sdk::Info info{.name = "no_in_place", .collective = CCT_ALLREDUCE};
  NoInPlaceAllreduce(const cct::sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}
  void run(const cct_coll_args& a) {
    refuse_in_place(a);
    const std::size_t bytes = a.count * cct::sdk::dtype_size(a.dtype);
    std::memcpy(a.recvbuf, a.sendbuf, bytes);
    incoming_.resize(bytes);
    for (int step = 1; step < comm_.size(); ++step) {
      const int to = (comm_.rank() + step) % comm_.size();
      const int from = (comm_.rank() - step + comm_.size()) % comm_.size();
      comm_.sendrecv(a.sendbuf, bytes, to, incoming_.data(), bytes, from, a.tag);
      cct::sdk::reduce_local(a.recvbuf, incoming_.data(), a.count, a.dtype, a.op);
    }
  }

 private:
  cct::sdk::Comm comm_;
  std::vector<unsigned char> incoming_;
};

// Block r of sendbuf goes to rank r, one exchange per peer.
class NoInPlaceAlltoall {
 public:
  static constexpr cct::sdk::Info info{.name = "no_in_place", .collective = CCT_ALLTOALL};
  NoInPlaceAlltoall(const cct::sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}
  void run(const cct_coll_args& a) {
    refuse_in_place(a);
    const std::size_t block = a.count * cct::sdk::dtype_size(a.dtype);
    const auto* send = static_cast<const unsigned char*>(a.sendbuf);
    auto* recv = static_cast<unsigned char*>(a.recvbuf);
    for (int step = 0; step < comm_.size(); ++step) {
      const int to = (comm_.rank() + step) % comm_.size();
      const int from = (comm_.rank() - step + comm_.size()) % comm_.size();
      comm_.sendrecv(send + to * block, block, to, recv + from * block, block, from, a.tag);
    }
  }

 private:
  cct::sdk::Comm comm_;
};

}  // namespace

CCT_SDK_EXPORT_ALGORITHMS(NoInPlaceAllreduce, NoInPlaceAlltoall)
