/* Refused without being loaded: it exports only a symbol of version 3, which
 * this host does not know. */
#include "cct/abi/export.h"

static const int future_table = 3;
CCT_EXPORT_POINTER_(cct_algorithms_v3, future_table)
