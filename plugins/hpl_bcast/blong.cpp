#include "hpl_bcast/blong.hpp"

namespace cct::plugins::hpl {

cct_cost HplBlong::cost(const sdk::Comm& comm, const cct_coll_args& args,
                        std::span<const int64_t>) {
  return SpreadRoll::cost(0, comm, args);
}

HplBlong::HplBlong(const sdk::Comm& comm, std::span<const int64_t>) : spread_roll_(comm, 0) {}

void HplBlong::run(const cct_coll_args& args) {
  spread_roll_.run(args);
}

}  // namespace cct::plugins::hpl
