#include "tuner/outside_figures.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "cct/error.hpp"
#include "cct/units.hpp"
#include "tuner/csv_reader.hpp"
#include "tuner/parse_number.hpp"

namespace cct::tuner {
namespace {

constexpr char kHeader[] =
    "collective,transport,nodes,np,bytes,datatype,pick,library_s,profile_s,runs";
constexpr int kFields = 10;

// Why the fields of a line are malformed, or empty when `f` was filled.
std::string parse_fields(const std::string (&text)[kFields], OutsideFigure* f) {
  if (text[0].empty() || text[1].empty() || text[6].empty())
    return "no collective, transport or pick";
  f->collective = text[0];
  f->transport = text[1];
  f->datatype = text[5];
  f->pick = text[6];
  if (!parse_number(text[2], &f->nodes) || f->nodes < 1) return "bad nodes '" + text[2] + "'";
  if (!parse_number(text[3], &f->np) || f->np < 1) return "bad np '" + text[3] + "'";
  if (!parse_number(text[4], &f->bytes) || f->bytes < 0) return "bad bytes '" + text[4] + "'";
  if (!parse_number(text[7], &f->library_s) || !parse_number(text[8], &f->profile_s) ||
      !(f->library_s > 0) || !(f->profile_s > 0))
    return "bad seconds '" + text[7] + "," + text[8] + "'";
  if (!parse_number(text[9], &f->runs) || f->runs < 1) return "bad runs '" + text[9] + "'";
  return "";
}

bool same_point_and_pick(const OutsideFigure& a, const OutsideFigure& b) {
  return a.collective == b.collective && a.transport == b.transport && a.nodes == b.nodes &&
         a.np == b.np && a.bytes == b.bytes && a.datatype == b.datatype && a.pick == b.pick;
}

// The sizes a refuted figure gives back, [lo, hi]: its own, and those
// the tuner measured between it and its bucket's next checked size on
// either side where that one keeps the library's call or is refuted too
// (a crossover's bisection measures sizes between the checked ones: left
// with their pick, they would be islands of it among the library's sizes).
struct Sizes {
  int64_t lo = 0, hi = 0;
};

// The rows a figure speaks for: at its bucket's sizes in `sizes` (rows of
// the element type whose rules chose the pick, else the untyped rows of
// every call; not those of a root of their own), not checks and failures.
bool at_point(const ResultRow& r, const OutsideFigure& f, Sizes sizes) {
  return r.collective == f.collective && r.transport == f.transport && r.nodes == f.nodes &&
         r.np == f.np && r.bytes >= sizes.lo && r.bytes <= sizes.hi && r.datatype == f.datatype &&
         !r.root && !is_check(r.stage) && r.stage != Stage::kFailed;
}

bool is_library(const std::string& collective, const std::string& algorithm,
                const Registry& registry) {
  const CollectiveInfo* c = find_collective(collective);
  const AlgorithmEntry* alg = c ? registry.find_algorithm(c->id, algorithm) : nullptr;
  return alg != nullptr && (alg->desc->required_caps & CCT_CAP_LIBRARY);
}

bool same_bucket(const OutsideFigure& a, const OutsideFigure& b) {
  return a.collective == b.collective && a.transport == b.transport && a.nodes == b.nodes &&
         a.np == b.np && a.datatype == b.datatype;
}

// Raises the non-library rows at f's sizes, of every stage, to the
// library's slowest figure of their size and pattern times f's ratio, at
// least 1 + kOutsideWin; whether any row was. The slowest, whatever the
// stage: raised against the library's row of its own stage only, a pick
// confirmed in one job still beat the library's slower job, which the
// library is weighed by (allreduce 16-256 B, refuted outside at
// 1.02-1.27x, kept numa 16-640), and a pick whose size has no library row
// of its stage (a screening figure, scaled to the confirmations there)
// was not raised at all (scan 256 B, refuted at 1.10x, kept chain).
bool raise_to_library(std::vector<ResultRow>& rows, const OutsideFigure& f, Sizes sizes,
                      const Registry& registry) {
  // A refuted pick that was not slower outside still lost the tie.
  const double ratio = std::max(f.profile_s / f.library_s, 1 + OutsideFigure::kOutsideWin);
  using Where = std::tuple<int64_t, std::string>;  // (bytes, counts)
  std::map<Where, PointResult> library;
  for (const ResultRow& r : rows)
    if (at_point(r, f, sizes) && is_library(r.collective, r.algorithm, registry)) {
      PointResult& slowest = library.try_emplace({r.bytes, r.counts}, r.result).first->second;
      slowest.median_s = std::max(slowest.median_s, r.result.median_s);
      slowest.min_s = std::max(slowest.min_s, r.result.min_s);
    }
  bool raised = false;
  for (ResultRow& r : rows) {
    if (!at_point(r, f, sizes) || is_library(r.collective, r.algorithm, registry)) continue;
    const auto lib = library.find({r.bytes, r.counts});
    if (lib == library.end()) continue;
    PointResult& figure = r.result;
    figure.median_s = std::max(figure.median_s, lib->second.median_s * ratio);
    figure.min_s = std::max(figure.min_s, lib->second.min_s * ratio);
    figure.max_s = std::max(figure.max_s, figure.median_s);
    raised = true;
  }
  return raised;
}

}  // namespace

bool keeps_library(const OutsideFigure& f, const Registry& registry) {
  return is_library(f.collective, f.pick, registry);
}

std::string outside_path(const std::string& results) {
  return std::filesystem::path(results).replace_extension(".outside").string();
}

std::vector<OutsideFigure> read_outside(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  std::vector<OutsideFigure> figures;
  try {
    io::CSVReader<kFields, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_no_column, "collective", "transport", "nodes", "np", "bytes",
                   "datatype", "pick", "library_s", "profile_s", "runs");
    for (std::string t[kFields];
         in.read_row(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9]);) {
      OutsideFigure f;
      if (std::string why = parse_fields(t, &f); !why.empty())
        throw Error(path + ":" + std::to_string(in.get_file_line()) + ": " + why,
                    CCT_ERR_INVALID_ARG);
      figures.push_back(std::move(f));
    }
  } catch (const io::error::base& e) {
    throw Error(path + ": " + e.what(), CCT_ERR_INVALID_ARG);
  }
  return figures;
}

void merge_outside(const std::string& path, std::span<const OutsideFigure> figures) {
  std::vector<OutsideFigure> all = read_outside(path);
  std::erase_if(all, [&](const OutsideFigure& old) {
    return std::ranges::any_of(figures,
                               [&](const OutsideFigure& f) { return same_point_and_pick(old, f); });
  });
  all.insert(all.end(), figures.begin(), figures.end());
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kHeader << "\n";
    for (const OutsideFigure& f : all)
      out << f.collective << "," << f.transport << "," << f.nodes << "," << f.np << "," << f.bytes
          << "," << f.datatype << ",\"" << f.pick << "\"," << f.library_s << "," << f.profile_s
          << "," << f.runs << "\n";
    if (!out.flush()) throw Error("cannot write the outside check's figures " + temporary);
  }
  std::filesystem::rename(temporary, path);  // a reader never sees half a file
}

std::vector<std::string> give_back_refuted(std::vector<ResultRow>& rows,
                                           std::span<const OutsideFigure> figures,
                                           const Registry& registry) {
  std::vector<const OutsideFigure*> sorted;
  for (const OutsideFigure& f : figures) sorted.push_back(&f);
  std::ranges::sort(sorted, [](const OutsideFigure* a, const OutsideFigure* b) {
    return std::tie(a->collective, a->transport, a->nodes, a->np, a->datatype, a->bytes) <
           std::tie(b->collective, b->transport, b->nodes, b->np, b->datatype, b->bytes);
  });
  const auto refuted = [&](const OutsideFigure& f) {
    return f.refuted() && !keeps_library(f, registry);
  };
  // The next checked size of sorted[at]'s bucket in the direction `step`
  // (+1, -1), if a figure there keeps the library or is refuted.
  const auto library_next = [&](std::ptrdiff_t at, std::ptrdiff_t step) -> std::optional<int64_t> {
    const OutsideFigure& f = *sorted[at];
    std::optional<int64_t> next;
    for (std::ptrdiff_t i = at + step; i >= 0 && i < std::ssize(sorted); i += step) {
      const OutsideFigure& g = *sorted[i];
      if (!same_bucket(f, g) || (next && g.bytes != *next)) break;
      if (g.bytes == f.bytes) continue;
      next = g.bytes;
      if (refuted(g) || keeps_library(g, registry)) return next;
    }
    return std::nullopt;
  };
  std::map<std::string, std::vector<const OutsideFigure*>> given;  // by collective
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const OutsideFigure& f = *sorted[i];
    if (!refuted(f)) continue;
    Sizes sizes{f.bytes, f.bytes};
    const auto at = static_cast<std::ptrdiff_t>(i);
    if (const std::optional<int64_t> below = library_next(at, -1)) sizes.lo = *below + 1;
    if (const std::optional<int64_t> above = library_next(at, 1)) sizes.hi = *above - 1;
    if (raise_to_library(rows, f, sizes, registry)) given[f.collective].push_back(&f);
  }
  std::vector<std::string> lines;
  for (auto& [collective, points] : given) {
    std::ostringstream line;
    line << collective << " (" << points.size() << " size" << (points.size() > 1 ? "s" : "")
         << "):";
    for (const OutsideFigure* f : points)
      line << " " << format_bytes(f->bytes) << (f->datatype.empty() ? "" : " " + f->datatype)
           << " np=" << f->np << " " << f->pick << " " << std::fixed << std::setprecision(2)
           << f->profile_s / f->library_s << "x";
    lines.push_back(line.str());
  }
  return lines;
}

}  // namespace cct::tuner
