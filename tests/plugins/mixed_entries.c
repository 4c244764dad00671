/* One good algorithm beside bad entries, each of which costs only itself: a
 * second algorithm of the same name, one of a collective this host does not
 * know (as a library of a newer ABI might name), one with a malformed
 * parameter table, and a null entry. */
#include <stddef.h>

#include "cct/abi/export.h"

static cct_status can_use(const cct_comm* c, const cct_coll_args* a, const int64_t* p,
                          cct_error* e) {
  (void)c, (void)a, (void)p, (void)e;
  return CCT_OK;
}
static cct_status prepare(const cct_comm* c, const int64_t* p, void** out, cct_error* e) {
  (void)c, (void)p, (void)e;
  *out = NULL;
  return CCT_OK;
}
static cct_status run(void* plan, const cct_coll_args* a, cct_error* e) {
  (void)plan, (void)a, (void)e;
  return CCT_OK;
}
static void destroy(void* plan) {
  (void)plan;
}

static const cct_param_desc empty_range[] = {
    {"segment", "a range from 8 down to 1", CCT_PARAM_BYTES, 8, NULL, 0, 8, 1, 1, CCT_STEP_ADD}};

static const cct_algorithm_desc good = {sizeof(cct_algorithm_desc),
                                        CCT_ABI_VERSION,
                                        "mixed_good",
                                        "the good one",
                                        CCT_BCAST,
                                        CCT_CAP_P2P,
                                        0,
                                        1,
                                        0,
                                        NULL,
                                        0,
                                        can_use,
                                        prepare,
                                        run,
                                        destroy};
static const cct_algorithm_desc same_name = {sizeof(cct_algorithm_desc),
                                             CCT_ABI_VERSION,
                                             "mixed_good",
                                             "its namesake",
                                             CCT_BCAST,
                                             CCT_CAP_P2P,
                                             0,
                                             1,
                                             0,
                                             NULL,
                                             0,
                                             can_use,
                                             prepare,
                                             run,
                                             destroy};
static const cct_algorithm_desc unknown_collective = {sizeof(cct_algorithm_desc),
                                                      CCT_ABI_VERSION,
                                                      "mixed_future",
                                                      "a collective of a newer ABI",
                                                      (cct_collective)99,
                                                      CCT_CAP_P2P,
                                                      0,
                                                      1,
                                                      0,
                                                      NULL,
                                                      0,
                                                      can_use,
                                                      prepare,
                                                      run,
                                                      destroy};
static const cct_algorithm_desc bad_params = {sizeof(cct_algorithm_desc),
                                              CCT_ABI_VERSION,
                                              "mixed_bad_range",
                                              "an empty parameter range",
                                              CCT_BCAST,
                                              CCT_CAP_P2P,
                                              0,
                                              1,
                                              0,
                                              empty_range,
                                              1,
                                              can_use,
                                              prepare,
                                              run,
                                              destroy};

static const cct_algorithm_desc* const list[] = {&good, &same_name, &unknown_collective,
                                                 &bad_params, NULL};
static const cct_algorithm_set set = {sizeof(cct_algorithm_set), CCT_ABI_VERSION, 5, list};
CCT_EXPORT_ALGORITHMS(set)
