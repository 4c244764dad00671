/* Refused: a transport descriptor without open/close. */
#include "cct/abi/export.h"

static const cct_transport_desc desc = {sizeof(cct_transport_desc), CCT_ABI_VERSION, "broken",
                                        "no functions", CCT_CAP_P2P};
CCT_EXPORT_TRANSPORT(desc)
