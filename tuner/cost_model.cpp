#include "tuner/cost_model.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <set>

namespace cct::tuner {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// The least-squares solution over the columns in `active` (the others 0).
VectorXd solve_on(const MatrixXd& a, const VectorXd& b, const std::vector<bool>& active) {
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    if (active[j]) cols.push_back(j);
  MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t k = 0; k < cols.size(); ++k)
    sub.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
  const VectorXd z = sub.colPivHouseholderQr().solve(b);
  VectorXd full = VectorXd::Zero(a.cols());
  for (std::size_t k = 0; k < cols.size(); ++k) full(cols[k]) = z(static_cast<Eigen::Index>(k));
  return full;
}

// Lawson and Hanson's NNLS on columns of unit norm.
VectorXd nnls(const MatrixXd& a, const VectorXd& b) {
  const Eigen::Index n = a.cols();
  constexpr double kTolerance = 1e-12;
  VectorXd x = VectorXd::Zero(n);
  std::vector<bool> active(static_cast<std::size_t>(n), false);
  for (int iteration = 0; iteration < 3 * n + 3; ++iteration) {
    const VectorXd w = a.transpose() * (b - a * x);
    Eigen::Index best = -1;
    for (Eigen::Index j = 0; j < n; ++j)
      if (!active[j] && w(j) > kTolerance && (best < 0 || w(j) > w(best))) best = j;
    if (best < 0) break;  // no column would lower the residual
    active[best] = true;
    // Step towards the unconstrained solution on the active columns, as far
    // as every coefficient stays >= 0; drop those that reach 0.
    for (;;) {
      const VectorXd z = solve_on(a, b, active);
      double step = 1;
      for (Eigen::Index j = 0; j < n; ++j)
        if (active[j] && z(j) <= 0) step = std::min(step, x(j) / (x(j) - z(j)));
      x += step * (z - x);
      if (step == 1) break;
      for (Eigen::Index j = 0; j < n; ++j)
        if (active[j] && x(j) <= kTolerance) active[j] = false, x(j) = 0;
    }
  }
  return x;
}

}  // namespace

std::vector<double> nonnegative_least_squares(const std::vector<std::vector<double>>& a,
                                              const std::vector<double>& b) {
  const auto rows = static_cast<Eigen::Index>(a.size());
  const auto cols = rows ? static_cast<Eigen::Index>(a.front().size()) : 0;
  MatrixXd m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = a[i][j];
  VectorXd norms = VectorXd::Ones(cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    if (m.col(j).norm() > 0) norms(j) = m.col(j).norm();
  for (Eigen::Index j = 0; j < cols; ++j) m.col(j) /= norms(j);
  const VectorXd x = nnls(m, Eigen::Map<const VectorXd>(b.data(), rows));
  std::vector<double> out(static_cast<std::size_t>(cols));
  for (Eigen::Index j = 0; j < cols; ++j) out[j] = x(j) / norms(j);
  return out;
}

std::map<std::string, double> cost_terms(const cct_cost& cost,
                                         const std::vector<std::string>& span_kinds) {
  std::map<std::string, double> terms{{"overhead", 1.0},
                                      {"reduced byte", cost.reduced_bytes},
                                      {"copied byte", cost.copied_bytes},
                                      {"bisection byte", cost.bisection_bytes}};
  for (std::size_t s = 0; s < span_kinds.size() && s < CCT_COST_SPANS; ++s) {
    terms["message." + span_kinds[s]] += cost.spans[s].messages;
    terms["byte." + span_kinds[s]] += cost.spans[s].bytes;
  }
  return terms;
}

CostModel CostModel::fit(std::span<const CostSample> samples) {
  std::set<std::string> names;
  std::vector<std::map<std::string, double>> rows;
  for (const CostSample& s : samples) {
    if (!(s.seconds > 0)) continue;
    rows.push_back(cost_terms(s.cost, s.span_kinds));
    for (const auto& [name, value] : rows.back()) names.insert(name);
  }
  CostModel model;
  for (const std::string& name : names) model.terms_.push_back({name, 0});
  if (rows.empty()) return model;
  // Each row divided by its figure: the fit minimises relative errors.
  std::vector<std::vector<double>> a;
  std::vector<double> b(rows.size(), 1.0);
  std::size_t i = 0;
  for (const CostSample& s : samples) {
    if (!(s.seconds > 0)) continue;
    std::vector<double>& row = a.emplace_back();
    for (const Term& t : model.terms_) {
      const auto it = rows[i].find(t.name);
      row.push_back(it == rows[i].end() ? 0 : it->second / s.seconds);
    }
    ++i;
  }
  const std::vector<double> x = nonnegative_least_squares(a, b);
  for (std::size_t j = 0; j < x.size(); ++j) model.terms_[j].value = x[j];
  return model;
}

double CostModel::seconds(const cct_cost& cost, const std::vector<std::string>& span_kinds) const {
  const std::map<std::string, double> terms = cost_terms(cost, span_kinds);
  double sum = 0;
  for (const Term& t : terms_)
    if (const auto it = terms.find(t.name); it != terms.end()) sum += t.value * it->second;
  return sum;
}

}  // namespace cct::tuner
