#include "cct/device/cuda_backend.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>
#include <string>

#include "cct/device/cuda_devices.hpp"
#include "cuda_reduce.hpp"

namespace cct::device {
namespace {

void check(cudaError_t e, const std::string& call) {
  if (e != cudaSuccess)
    throw Error(call + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

cudaMemcpyKind memcpy_kind(cct_copy_kind kind) {
  switch (kind) {
    case CCT_COPY_HOST_TO_DEVICE: return cudaMemcpyHostToDevice;
    case CCT_COPY_DEVICE_TO_HOST: return cudaMemcpyDeviceToHost;
    default: return cudaMemcpyDeviceToDevice;
  }
}

// Makes `device` current for a scope and gives the thread its own back
// after: the runtime serves programs that chose their device themselves.
// It never throws (the backend's noexcept releases use it): where the
// switch fails, the call it guards fails and says why.
class OnDevice {
 public:
  explicit OnDevice(int device) {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device)
      switched_ = cudaSetDevice(device) == cudaSuccess;
  }
  ~OnDevice() {
    if (switched_) cudaSetDevice(previous_);
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

// The driver's cuMemGetAddressRange, through the runtime (the backend
// links no driver library: a machine without one must still load it), or
// null where the driver does not give it.
using AddressRange = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);
AddressRange address_range() {
  static const AddressRange found = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &entry, 12000, cudaEnableDefault,
                                         &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess)
      return AddressRange{nullptr};
    return reinterpret_cast<AddressRange>(entry);
  }();
  return found;
}

cudaStream_t stream_of(Stream s) {
  return static_cast<cudaStream_t>(s.handle);
}
cudaEvent_t event_of(Event e) {
  return static_cast<cudaEvent_t>(e.handle);
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device) : device_(device) {}

  const char* name() const override { return "cuda"; }

  void* alloc(std::size_t bytes) override {
    OnDevice on(device_);
    void* ptr = nullptr;
    check(cudaMalloc(&ptr, bytes), "cudaMalloc(" + std::to_string(bytes) + ")");
    return ptr;
  }
  void free(void* ptr) noexcept override {
    OnDevice on(device_);
    cudaFree(ptr);
  }
  void* alloc_pinned(std::size_t bytes) override {
    void* ptr = nullptr;
    check(cudaMallocHost(&ptr, bytes), "cudaMallocHost(" + std::to_string(bytes) + ")");
    return ptr;
  }
  void free_pinned(void* ptr) noexcept override { cudaFreeHost(ptr); }

  // Managed memory counts as device memory: the host can reach it, but
  // only by migrating pages, which a collective must not cause per call.
  // An address CUDA does not know (host memory, any other value) is host
  // memory; the allocation's extent comes from the driver where it gives
  // it.
  cct_memory_region locate(const void* ptr) override {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it for the calls that follow
      return {CCT_MEMORY_HOST, nullptr, 0};
    }
    if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
      return {CCT_MEMORY_HOST, nullptr, 0};
    cct_memory_region region{CCT_MEMORY_DEVICE, nullptr, 0};
    if (const auto range = address_range()) {
      CUdeviceptr base = 0;
      std::size_t bytes = 0;
      if (range(&base, &bytes, reinterpret_cast<CUdeviceptr>(ptr)) == CUDA_SUCCESS) {
        region.base = reinterpret_cast<const void*>(base);
        region.bytes = bytes;
      }
    }
    return region;
  }

  // Peer access is enabled lazily, by the driver, on the first access
  // through the mapping: a handle between devices that cannot reach each
  // other fails at open, and the caller stages instead.
  IpcHandle export_memory(const void* base) override {
    OnDevice on(device_);
    cudaIpcMemHandle_t native{};
    check(cudaIpcGetMemHandle(&native, const_cast<void*>(base)), "cudaIpcGetMemHandle");
    static_assert(sizeof native == sizeof(IpcHandle::bytes));
    IpcHandle handle;
    std::memcpy(handle.bytes, &native, sizeof native);
    return handle;
  }
  void* open_memory(const IpcHandle& handle) override {
    OnDevice on(device_);
    cudaIpcMemHandle_t native{};
    std::memcpy(&native, handle.bytes, sizeof native);
    void* ptr = nullptr;
    check(cudaIpcOpenMemHandle(&ptr, native, cudaIpcMemLazyEnablePeerAccess),
          "cudaIpcOpenMemHandle");
    return ptr;
  }
  void close_memory(void* ptr) noexcept override {
    OnDevice on(device_);
    cudaIpcCloseMemHandle(ptr);
  }

  // Non-blocking: the legacy default stream, which a program's own work
  // may be on, never serializes with the transport's.
  Stream create_stream() override {
    OnDevice on(device_);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return Stream{stream};
  }
  void destroy_stream(Stream stream) noexcept override {
    OnDevice on(device_);
    cudaStreamDestroy(stream_of(stream));
  }
  // Without timing, the cheapest kind to record and query.
  Event create_event() override {
    OnDevice on(device_);
    cudaEvent_t event = nullptr;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    return Event{event};
  }
  void destroy_event(Event event) noexcept override {
    OnDevice on(device_);
    cudaEventDestroy(event_of(event));
  }

  void copy(void* dst, const void* src, std::size_t bytes, cct_copy_kind kind,
            Stream stream) override {
    OnDevice on(device_);
    check(cudaMemcpyAsync(dst, src, bytes, memcpy_kind(kind), stream_of(stream)),
          "cudaMemcpyAsync(" + std::to_string(bytes) + ")");
  }
  void reduce(void* inout, const void* in, std::size_t count, cct_datatype dtype, cct_op op,
              Stream stream) override {
    OnDevice on(device_);
    check(launch_reduce(inout, in, count, dtype, op, stream_of(stream)),
          "reduce kernel (" + std::to_string(count) + " elements)");
  }

  void record(Event event, Stream stream) override {
    OnDevice on(device_);
    check(cudaEventRecord(event_of(event), stream_of(stream)), "cudaEventRecord");
  }
  bool done(Event event) override {
    const cudaError_t e = cudaEventQuery(event_of(event));
    if (e == cudaErrorNotReady) return false;
    check(e, "cudaEventQuery");
    return true;
  }
  void wait(Event event) override {
    check(cudaEventSynchronize(event_of(event)), "cudaEventSynchronize");
  }
  void synchronize(Stream stream) override {
    check(cudaStreamSynchronize(stream_of(stream)), "cudaStreamSynchronize");
  }

 private:
  int device_;
};

}  // namespace

std::unique_ptr<Backend> open_cuda_backend(int device) {
  const CudaDevices found = cuda_devices();
  if (!found.absent.empty()) throw Error(found.absent);
  if (device == kCurrentDevice) check(cudaGetDevice(&device), "cudaGetDevice");
  if (device < 0 || device >= static_cast<int>(found.devices.size()))
    throw Error("device " + std::to_string(device) + " of " + std::to_string(found.devices.size()));
  return std::make_unique<CudaBackend>(device);
}

}  // namespace cct::device
