#include "hpl_bcast/blong_m.hpp"

namespace cct::plugins::hpl {

cct_cost HplBlongM::cost(const sdk::Comm& comm, const cct_coll_args& args,
                         std::span<const int64_t>) {
  return SpreadRoll::cost(1, comm, args);
}

HplBlongM::HplBlongM(const sdk::Comm& comm, std::span<const int64_t>) : spread_roll_(comm, 1) {}

void HplBlongM::run(const cct_coll_args& args) {
  spread_roll_.run(args);
}

}  // namespace cct::plugins::hpl
