// The HPL panel broadcasts, exported as libcct_hpl_bcast.
#include "hpl_bcast/blong.hpp"
#include "hpl_bcast/blong_m.hpp"
#include "hpl_bcast/one_ring.hpp"
#include "hpl_bcast/one_ring_m.hpp"
#include "hpl_bcast/two_ring.hpp"
#include "hpl_bcast/two_ring_m.hpp"

using cct::plugins::hpl::Hpl1Ring;
using cct::plugins::hpl::Hpl1RingM;
using cct::plugins::hpl::Hpl2Ring;
using cct::plugins::hpl::Hpl2RingM;
using cct::plugins::hpl::HplBlong;
using cct::plugins::hpl::HplBlongM;

CCT_SDK_EXPORT_ALGORITHMS(Hpl1Ring, Hpl1RingM, Hpl2Ring, Hpl2RingM, HplBlong, HplBlongM)
