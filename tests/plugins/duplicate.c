/* Its one entry is refused, alone: a second bcast algorithm named
 * "example_flat" (the example plugin has it). */
#include "cct/abi/export.h"

static cct_status can_use(const cct_comm *c, const cct_coll_args *a, const int64_t *p,
                          cct_error *e) {
  (void)c, (void)a, (void)p, (void)e;
  return CCT_OK;
}
static cct_status prepare(const cct_comm *c, const int64_t *p, void **out, cct_error *e) {
  (void)c, (void)p, (void)e;
  *out = 0;
  return CCT_OK;
}
static cct_status run(void *plan, const cct_coll_args *a, cct_error *e) {
  (void)plan, (void)a, (void)e;
  return CCT_OK;
}
static void destroy(void *plan) { (void)plan; }

static const cct_algorithm_desc dup = {
    sizeof(cct_algorithm_desc), CCT_ABI_VERSION, "example_flat", "duplicate", CCT_BCAST,
    CCT_CAP_P2P, 0, 1, 0, 0, 0, can_use, prepare, run, destroy};
static const cct_algorithm_desc *const list[] = {&dup};
static const cct_algorithm_set set = {sizeof(cct_algorithm_set), CCT_ABI_VERSION, 1, list};
CCT_EXPORT_ALGORITHMS(set)
