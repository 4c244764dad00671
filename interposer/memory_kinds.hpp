// The MPI interposer: where a program's buffers are.
//
// A program passes device memory (cudaMalloc) and host memory alike, and
// the library under the interposer may not take the first (Debian's Open
// MPI is not CUDA-aware: it faults on it). So where a communicator's
// runtime has a device transport, each buffer's kind is asked of it
// (cct_device_ops.locate) once per allocation where the transport tells
// the allocation's extent, else once per address, and each thread
// remembers the answers. An address keeps its kind: device memory lies in
// address ranges the driver reserves for it (CUDA's unified addressing),
// which host allocations never take while the driver holds them.
#pragma once

#include "cct/abi/transport.h"

namespace cct::interposer {

// The kind of ptr (null: host memory), asked of `device` where this
// thread does not remember it. Throws cct::Error where the transport
// fails to say.
cct_memory_kind memory_kind(cct_transport_instance* device, const void* ptr);

}  // namespace cct::interposer
