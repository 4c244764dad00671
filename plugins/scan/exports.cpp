// The prefix reductions, exported as libcct_scan.
#include "scan/chain.hpp"
#include "scan/recursive_doubling.hpp"

namespace scan = cct::plugins::scan;

CCT_SDK_EXPORT_ALGORITHMS(scan::RecursiveDoubling<CCT_SCAN>, scan::RecursiveDoubling<CCT_EXSCAN>,
                          scan::Chain<CCT_SCAN>, scan::Chain<CCT_EXSCAN>)
