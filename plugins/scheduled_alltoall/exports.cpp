// The scheduled alltoall, exported as libcct_scheduled_alltoall.
#include "scheduled_alltoall/scheduled.hpp"

CCT_SDK_EXPORT_ALGORITHMS(cct::plugins::alltoall::Scheduled)
