/* Refused at load: it needs a function no library defines, so dlopen with
 * RTLD_NOW fails. */
#include "cct/abi/export.h"

extern int cct_test_function_nobody_defines(void);
int cct_test_call_it(void) { return cct_test_function_nobody_defines(); }

static const cct_algorithm_set set = {sizeof(cct_algorithm_set), CCT_ABI_VERSION, 0, 0};
CCT_EXPORT_ALGORITHMS(set)
