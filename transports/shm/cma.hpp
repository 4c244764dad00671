// Cross-memory attach (process_vm_readv): a receiver copies a large message
// straight from the sender's memory, one copy instead of two through the
// slots, and no slot bandwidth spent.
//
// Whether the kernel lets one rank read another depends on things a rank
// cannot see alone (Yama's ptrace_scope, seccomp filters of containers,
// capabilities), so open() tries it: each rank reads a known value from its
// neighbour and the ranks use CMA only if it worked for every one of them.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace cct::shm {

// The value a rank exposes for its neighbour's probe read.
uint64_t cma_probe_value(pid_t pid);

// Reads `bytes` at `remote` in process `pid` into `local` (a plain memcpy
// when pid is this process). Returns 0, or the errno of the failure.
int cma_read(pid_t pid, uint64_t remote, void* local, std::size_t bytes);

// Writes `bytes` from `local` to `remote` in process `pid`
// (process_vm_writev; the same permission as reading). Returns 0, or the
// errno of the failure.
int cma_write(pid_t pid, uint64_t remote, const void* local, std::size_t bytes);

// Whether the environment allows CMA (CCT_SHM_CMA=0 turns it off).
bool cma_allowed_by_environment();

// Reads the probe value of process `pid` at `address`; true if it matched.
bool cma_probe(pid_t pid, uint64_t address);

}  // namespace cct::shm
