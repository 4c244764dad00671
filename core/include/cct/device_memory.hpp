// The host's side of a device transport's table (cct_device_ops, on a
// transport granting CCT_CAP_DEVICE): what the runtime and the MPI
// interposer do with a program's device memory.
#pragma once

#include <cstddef>
#include <memory>

#include "cct/abi/transport.h"

namespace cct {

// `bytes` of device memory of the transport, uninitialised, freed through
// it when the last owner lets go (the transport must outlive it). Throws
// cct::Error (CCT_ERR_NO_MEMORY) naming `what` and the transport's reason.
std::shared_ptr<std::byte> device_memory(cct_transport_instance* device, std::size_t bytes,
                                         const char* what);

// Copies `bytes` between device and host memory, or within device memory,
// through device's table, complete on return. Throws cct::Error
// (CCT_ERR_TRANSPORT) naming `what`, the direction and the transport's
// reason.
void copy_and_wait(cct_transport_instance* device, void* dst, const void* src, std::size_t bytes,
                   cct_copy_kind kind, const char* what);

// Where ptr points, as device's table says (cct_device_ops.locate). A
// transport built before that entry was appended tells nothing: host
// memory. Throws cct::Error with the transport's reason where it fails.
cct_memory_region locate(cct_transport_instance* device, const void* ptr);

}  // namespace cct
