/* A transport built for plugin ABI version 1 from its frozen headers alone:
 * it serves a single rank and has no operations. Its probe and open succeed
 * only when handed a bootstrap that says version 1, as every version 1
 * transport checks, so the registry tests prove that a version 2 host
 * stamps the bootstrap of a transport it loaded as version 1. */
#include <stdio.h>
#include <stdlib.h>

#include "cct/abi/v1/export.h"

static cct_status check(const cct_bootstrap* boot, cct_error* err) {
  if (boot->abi_version != CCT_ABI_VERSION || boot->struct_size != sizeof *boot) {
    snprintf(err->message, sizeof err->message,
             "v1_only: handed a bootstrap of ABI version %u, %u bytes", boot->abi_version,
             boot->struct_size);
    return CCT_ERR_ABI;
  }
  if (boot->size != 1) {
    snprintf(err->message, sizeof err->message, "v1_only: serves one rank, not %d", boot->size);
    return CCT_ERR_UNSUPPORTED;
  }
  return CCT_OK;
}

static cct_status probe(const cct_bootstrap* boot, cct_error* err) {
  return check(boot, err);
}

static cct_status open_instance(const cct_bootstrap* boot, cct_transport_instance** out,
                                cct_error* err) {
  cct_status s = check(boot, err);
  if (s != CCT_OK) return s;
  cct_transport_instance* inst = calloc(1, sizeof *inst);
  if (inst == NULL) {
    snprintf(err->message, sizeof err->message, "v1_only: out of memory");
    return CCT_ERR_NO_MEMORY;
  }
  inst->struct_size = sizeof *inst;
  inst->abi_version = CCT_ABI_VERSION;
  inst->rank = boot->rank;
  inst->size = boot->size;
  *out = inst;
  return CCT_OK;
}

static void close_instance(cct_transport_instance* self) {
  free(self);
}

static const cct_transport_desc desc = {sizeof(cct_transport_desc),
                                        CCT_ABI_VERSION,
                                        "v1_only",
                                        "one rank, no operations, ABI v1",
                                        0,
                                        {0, 0},
                                        probe,
                                        open_instance,
                                        close_instance,
                                        NULL};
CCT_EXPORT_TRANSPORT(desc)
