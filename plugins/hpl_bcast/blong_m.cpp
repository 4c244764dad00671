#include "hpl_bcast/blong_m.hpp"

namespace cct::plugins::hpl {

HplBlongM::HplBlongM(const sdk::Comm& comm, std::span<const int64_t>) : spread_roll_(comm, 1) {}

void HplBlongM::run(const cct_coll_args& args) {
  spread_roll_.run(args);
}

}  // namespace cct::plugins::hpl
