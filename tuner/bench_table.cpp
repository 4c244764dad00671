#include "tuner/bench_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "cct/error.hpp"
#include "cct/units.hpp"

namespace cct::tuner {
namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Where each needed field of a row is.
struct Columns {
  std::size_t bytes = 0;
  std::vector<std::size_t> ratios;
  std::vector<std::string> series;
  std::size_t needed() const { return std::max(bytes, *std::ranges::max_element(ratios)) + 1; }
};

// The columns of a header, or why it lacks them.
std::optional<Columns> columns_of(const std::vector<std::string>& header, std::string* why) {
  Columns c;
  const auto bytes = std::ranges::find(header, "bytes");
  if (bytes == header.end() || std::ranges::find(header, "MPI") == header.end()) {
    *why = "the header has no 'bytes' or no 'MPI' column";
    return std::nullopt;
  }
  c.bytes = bytes - header.begin();
  for (std::size_t i = 1; i < header.size(); ++i) {
    if (header[i] == "cct/MPI")
      c.series.push_back("cct");
    else if (header[i] == "/MPI")
      c.series.push_back(header[i - 1]);
    else
      continue;
    c.ratios.push_back(i);
  }
  if (c.ratios.empty()) *why = "the header has no ratio column ('cct/MPI' or '/MPI')";
  return c.ratios.empty() ? std::nullopt : std::optional{c};
}

// A ratio, NaN for "-"; nullopt for anything else that is not a number.
std::optional<double> ratio_of(const std::string& text) {
  if (text == "-") return std::nan("");
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !(v >= 0)) return std::nullopt;
  return v;
}

// A row of the table, or why the line is not one.
std::optional<BenchRow> row_of(const std::vector<std::string>& fields, const Columns& c,
                               std::string* why) {
  cct_collective collective;
  if (!parse_collective(fields[0], &collective)) {
    *why = "not a row: unknown collective '" + fields[0] + "'";
    return std::nullopt;
  }
  if (fields.size() < c.needed()) {
    *why =
        std::to_string(fields.size()) + " fields, the header needs " + std::to_string(c.needed());
    return std::nullopt;
  }
  const std::optional<int64_t> bytes = parse_bytes(fields[c.bytes]);
  if (!bytes) {
    *why = "bytes '" + fields[c.bytes] + "' is not a size";
    return std::nullopt;
  }
  BenchRow row{.collective = fields[0], .bytes = *bytes};
  for (std::size_t i : c.ratios) {
    const std::optional<double> ratio = ratio_of(fields[i]);
    if (!ratio) {
      *why = "ratio '" + fields[i] + "' is not a number";
      return std::nullopt;
    }
    row.ratios.push_back(*ratio);
  }
  return row;
}

}  // namespace

BenchTable parse_bench(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::optional<Columns> columns;
  BenchTable table;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::vector<std::string> fields = words_of(line);
    std::string why;
    if (!fields.empty() && fields[0] == "collective") {
      columns = columns_of(fields, &why);
      if (columns && !table.series.empty() && columns->series != table.series)
        why = "the header's ratio columns differ from the first header's";
      else if (columns)
        table.series = columns->series;
    } else if (fields.empty() || !columns) {
      continue;
    } else if (std::optional<BenchRow> row = row_of(fields, *columns, &why)) {
      table.rows.push_back(std::move(*row));
    }
    if (!why.empty())
      throw Error(source + ":" + std::to_string(number) + ": " + why, CCT_ERR_INVALID_ARG);
  }
  if (!columns)
    throw Error(source + ": no ccbench table (a header line starting with 'collective')",
                CCT_ERR_INVALID_ARG);
  return table;
}

BenchTable read_bench(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read ccbench output " + path, CCT_ERR_INVALID_ARG);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_bench(text.str(), path);
}

}  // namespace cct::tuner
