/*
 * ccautotune plugin ABI: how a library exports its tables.
 *
 * Each macro defines one pointer variable with C linkage, named after the
 * kind and the ABI version (cct_algorithms_v2, cct_transport_v2), placed in
 * the ELF section "cct". This is the layout of a Boost.DLL section alias,
 * so the host can list a library's exports from its section table without
 * loading it or running any of its code, then load it and read the pointer.
 * A plugin needs neither Boost nor C++ to use these macros.
 *
 * Use each macro at most once per library, at file scope, in one source file.
 */
#ifndef CCT_ABI_EXPORT_H
#define CCT_ABI_EXPORT_H

#include "cct/abi/algorithm.h"
#include "cct/abi/transport.h"

/* The ELF section that holds a plugin's exports. */
#define CCT_EXPORT_SECTION "cct"

#define CCT_EXPORT_ATTRIBUTES_ \
  __attribute__((visibility("default"), used, section(CCT_EXPORT_SECTION)))

#ifdef __cplusplus
#define CCT_EXPORT_POINTER_(symbol, object)                           \
  extern "C" {                                                        \
  CCT_EXPORT_ATTRIBUTES_ const void* symbol = (const void*)&(object); \
  }
#else
#define CCT_EXPORT_POINTER_(symbol, object) \
  CCT_EXPORT_ATTRIBUTES_ const void* symbol = (const void*)&(object);
#endif

/* `set` is a cct_algorithm_set with static storage duration. */
#define CCT_EXPORT_ALGORITHMS(set) CCT_EXPORT_POINTER_(cct_algorithms_v2, set)

/* `desc` is a cct_transport_desc with static storage duration. */
#define CCT_EXPORT_TRANSPORT(desc) CCT_EXPORT_POINTER_(cct_transport_v2, desc)

#endif /* CCT_ABI_EXPORT_H */
