/* Refused: its table claims ABI version 99 behind a version 2 symbol. */
#include "cct/abi/export.h"

static const cct_algorithm_set set = {sizeof(cct_algorithm_set), 99, 0, 0};
CCT_EXPORT_ALGORITHMS(set)
