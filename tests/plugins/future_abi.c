/* Refused without being loaded: it exports only a version-2 symbol. */
#include "cct/abi/export.h"

static const int future_table = 2;
CCT_EXPORT_POINTER_(cct_algorithms_v2, future_table)
