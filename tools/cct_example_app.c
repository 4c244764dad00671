/* An application of the runtime's C API: allreduce and bcast over a few
 * sizes, each result checked. Run as `cclaunch -n 4 cct_example_app`, with
 * CCT_STATS=1 to see which algorithm served each call. */
#include <stdio.h>
#include <stdlib.h>

#include "cct/cct.h"

static int fail(const char* what, const cct_error* err) {
  fprintf(stderr, "cct_example_app: %s: %s\n", what, err ? err->message : "wrong result");
  return 1;
}

static int check_allreduce(cct_runtime* rt, size_t count) {
  cct_error err;
  int n = cct_size(rt), r = cct_rank(rt);
  int* v = malloc(count * sizeof *v + 1);
  for (size_t i = 0; i < count; ++i) v[i] = r + (int)i;
  if (cct_allreduce(rt, CCT_IN_PLACE, v, count, CCT_INT32, CCT_SUM, &err) != CCT_OK)
    return free(v), fail("allreduce", &err);
  for (size_t i = 0; i < count; ++i)
    if (v[i] != n * (n - 1) / 2 + n * (int)i) return free(v), fail("allreduce", NULL);
  free(v);
  return 0;
}

static int check_bcast(cct_runtime* rt, size_t count) {
  cct_error err;
  unsigned char* b = malloc(count + 1);
  for (size_t i = 0; i < count; ++i) b[i] = cct_rank(rt) == 0 ? (unsigned char)(i * 7) : 0;
  if (cct_bcast(rt, b, count, CCT_UINT8, 0, &err) != CCT_OK) return free(b), fail("bcast", &err);
  for (size_t i = 0; i < count; ++i)
    if (b[i] != (unsigned char)(i * 7)) return free(b), fail("bcast", NULL);
  free(b);
  return 0;
}

int main(void) {
  cct_runtime* rt;
  cct_error err;
  if (cct_init(&rt, &err) != CCT_OK) return fail("init", &err);
  int bad = 0;
  for (size_t count = 1; count <= (1u << 20) && !bad; count *= 16)
    bad = check_allreduce(rt, count) || check_bcast(rt, count);
  if (!bad && cct_barrier(rt, &err) != CCT_OK) bad = fail("barrier", &err);
  if (!bad && cct_rank(rt) == 0)
    printf("cct_example_app: %d ranks, all results correct\n", cct_size(rt));
  cct_finalize(rt);
  return bad;
}
