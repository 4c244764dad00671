// ccautotune tuner: the cost model of one transport, fitted from measured
// figures and the cost shapes of their calls (cct_cost):
//
//   time = o + sum over spans s of (alpha[kind of s] * messages[s] +
//          beta[kind of s] * bytes[s]) + gamma * reduced_bytes
//          + delta * copied_bytes + epsilon * bisection_bytes
//
// one alpha and beta per kind of span ("node", "network", "numa", ...: what
// the span's messages cross, ShapeComm::span_kinds), every coefficient >= 0,
// fitted by non-negative least squares on relative errors, so that a 2 us
// barrier weighs as much as a 2 ms alltoall.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "cct/abi/algorithm.h"

namespace cct::tuner {

// One measured figure with the cost shape of its call.
struct CostSample {
  cct_cost cost{};
  std::vector<std::string> span_kinds;  // of the shape it was measured on
  double seconds = 0;
};

class CostModel {
 public:
  // One coefficient of the model and what it multiplies.
  struct Term {
    // "overhead", "message.node", "byte.node", "reduced byte", "copied
    // byte", "bisection byte"
    std::string name;
    double value = 0;  // seconds per unit
  };

  // The fit over samples (their seconds > 0); with none, every
  // coefficient 0.
  static CostModel fit(std::span<const CostSample> samples);
  // The modelled seconds of a call of this cost on a shape with these
  // span kinds; a term the fit never saw counts as 0.
  double seconds(const cct_cost& cost, const std::vector<std::string>& span_kinds) const;
  const std::vector<Term>& terms() const { return terms_; }

 private:
  std::vector<Term> terms_;
};

// What each term of the model multiplies in a call of this cost on a shape
// with these span kinds, by term name (Term::name): "overhead" is 1.
std::map<std::string, double> cost_terms(const cct_cost& cost,
                                         const std::vector<std::string>& span_kinds);

// The x >= 0 that minimises |a x - b| (Lawson and Hanson's active set
// method; a's columns scaled to one norm first, so that a column of bytes
// and one of message counts weigh alike). Columns that are all zero get 0.
std::vector<double> nonnegative_least_squares(const std::vector<std::vector<double>>& a,
                                              const std::vector<double>& b);

}  // namespace cct::tuner
