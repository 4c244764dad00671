#include "instance.hpp"

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cct/device/cuda_backend.hpp"
#include "cct/device/lazy_backend.hpp"
#include "cct/sdk/comm.hpp"

namespace cct::cuda {
namespace {

// A staged message moves in chunks of this many bytes where neither its
// algorithm (cct_device_ops.set_chunk) nor CCT_CUDA_CHUNK says: large
// enough that a chunk's fixed costs (a copy launch, a message) are small
// beside its transfer, small enough that the first and last chunks, which
// do not overlap, are a small part of a long message.
constexpr std::size_t kDefaultChunk = std::size_t{1} << 20;
// Chunks staged at once per message: up to four, so that one is copied
// while others travel; each message owns one block and borrows the rest
// from a pool of kPoolBlocks shared by all messages in flight (PDBP's
// buffer pool: a fixed budget, given to the messages that keep it busy).
constexpr int kSlots = 4;
constexpr std::size_t kPoolBlocks = 16;

// A positive integer from the environment variable `name`, or `fallback`
// where it is unset.
long long from_env(const char* name, long long fallback, long long least) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || errno != 0 || value < least)
    throw std::invalid_argument(std::string(name) + "=" + text +
                                ": not an integer >= " + std::to_string(least));
  return value;
}

// CCT_CUDA_IPC: whether ranks of one node may copy messages out of each
// other's device memory (on, the default) or stage every one (off).
bool ipc_from_env() {
  const char* text = std::getenv("CCT_CUDA_IPC");
  if (text == nullptr || *text == '\0' || std::string_view(text) == "on") return true;
  if (std::string_view(text) == "off") return false;
  throw std::invalid_argument(std::string("CCT_CUDA_IPC=") + text + ": not on or off");
}

// What each rank found when it opened, exchanged so that all ranks fail
// together where one does.
struct Verdict {
  uint64_t chunk = 0;
  uint32_t ipc = 0;
  char why[200] = "";  // empty: opened
};

}  // namespace

// The machine first: where there is no GPU, that is the reason worth
// telling, whatever else is missing. A probe may come before the host
// transport is open (ccautotune asks whether to open one for it): only
// opening needs it.
std::string refusal(const DeviceFlavor& flavor, const cct_bootstrap& boot, bool opening) {
  if (std::string absent = flavor.absent(); !absent.empty()) return absent;
  if (boot.abi_version != CCT_ABI_VERSION ||
      boot.struct_size < offsetof(cct_bootstrap, host) + sizeof boot.host)
    return "a bootstrap of ABI version " + std::to_string(boot.abi_version) + " and " +
           std::to_string(boot.struct_size) + " bytes has no host transport (cct_bootstrap.host)";
  if (boot.host == nullptr && !opening) return "";
  if (boot.host == nullptr)
    return "no host transport under it (cct_bootstrap.host): it stages device memory through one";
  if (boot.host->size != boot.size || boot.host->rank != boot.rank || boot.host->p2p == nullptr)
    return "the host transport under it is not a p2p transport over these ranks";
  return "";
}

Instance::Instance(const DeviceFlavor& flavor, const cct_bootstrap& boot) {
  Verdict mine;
  int device = device::kCurrentDevice;
  try {
    mine.chunk = static_cast<uint64_t>(from_env("CCT_CUDA_CHUNK", 0, 1));
    mine.ipc = ipc_from_env();
    device = static_cast<int>(from_env("CCT_CUDA_DEVICE", device::kCurrentDevice, 0));
  } catch (const std::exception& e) {
    std::snprintf(mine.why, sizeof mine.why, "%s", e.what());
  }
  std::vector<Verdict> all(boot.size);
  if (boot.allgather(boot.ctx, &mine, all.data(), sizeof mine) != CCT_OK)
    throw sdk::TransportError(CCT_ERR_TRANSPORT, "the bootstrap's allgather failed");
  for (int r = 0; r < boot.size; ++r) {
    if (all[r].why[0] != '\0')
      throw sdk::TransportError(CCT_ERR_UNSUPPORTED,
                                "rank " + std::to_string(r) + ": " + all[r].why);
    const auto chunk_text = [](uint64_t chunk) {
      return chunk == 0 ? std::string("unset") : std::to_string(chunk);
    };
    if (all[r].chunk != all[0].chunk)
      throw std::invalid_argument(
          "CCT_CUDA_CHUNK differs between ranks: " + chunk_text(all[0].chunk) + " on rank 0, " +
          chunk_text(all[r].chunk) + " on rank " + std::to_string(r));
    if (all[r].ipc != all[0].ipc)
      throw std::invalid_argument(
          "CCT_CUDA_IPC differs between ranks: " + std::string(all[0].ipc ? "on" : "off") +
          " on rank 0, " + (all[r].ipc ? "on" : "off") + " on rank " + std::to_string(r));
  }
  chunk_fixed_ = mine.chunk != 0;
  backend_ = std::make_unique<device::LazyBackend>(
      [open = flavor.open, device] { return open(device); }, flavor.in_use);
  p2p_ = std::make_unique<device::DeviceP2p>(
      *backend_, boot.host,
      device::StagingShape{chunk_fixed_ ? mine.chunk : kDefaultChunk, kSlots, kPoolBlocks},
      mine.ipc != 0, boot.timeout_s);
  c_.struct_size = sizeof c_;
  c_.abi_version = CCT_ABI_VERSION;
  c_.rank = boot.rank;
  c_.size = boot.size;
  c_.capabilities = CCT_CAP_P2P | CCT_CAP_DEVICE;
  c_.p2p = &kP2pOps;
  c_.device = &kDeviceOps;
  c_.state = this;
}

void Instance::set_chunk(std::size_t chunk_bytes) {
  if (!chunk_fixed_) p2p_->set_chunk(chunk_bytes);
}

device::Stream Instance::stream() {
  if (!stream_) stream_ = std::make_unique<device::UniqueStream>(*backend_);
  return stream_->get();
}

}  // namespace cct::cuda
