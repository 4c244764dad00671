// The baseline barrier library: cct_algorithms_v2 with its three barriers.
#include "barrier/central_counter.hpp"
#include "barrier/dissemination.hpp"
#include "barrier/recursive_doubling.hpp"

using cct::plugins::barrier::CentralCounter;
using cct::plugins::barrier::Dissemination;
using cct::plugins::barrier::RecursiveDoubling;

CCT_SDK_EXPORT_ALGORITHMS(Dissemination, RecursiveDoubling, CentralCounter)
