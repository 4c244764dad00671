#include "tuner/results_csv.hpp"

#include <charconv>
#include <filesystem>
#include <sstream>

#include "cct/error.hpp"
#include "cct/units.hpp"

namespace cct::tuner {
namespace {

constexpr std::size_t kColumns = 11;
constexpr Stage kStages[] = {Stage::kPruned, Stage::kFinal, Stage::kCrossover, Stage::kCheck};

bool parse_stage(const std::string& text, Stage* out) {
  for (Stage s : kStages)
    if (text == stage_name(s)) {
      *out = s;
      return true;
    }
  return false;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find(sep, start)) != std::string::npos; start = end + 1)
    parts.push_back(text.substr(start, end - start));
  parts.push_back(text.substr(start));
  return parts;
}

bool is_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

template <class T>
bool parse_number(const std::string& text, T* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

// Six significant digits keep whole nanoseconds up to a millisecond, more
// than the timing can tell apart, and keep the file readable.
std::string format_seconds(double s) {
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, s, std::chars_format::general, 6);
  return std::string(buf, ptr);
}

bool parse_value(const cct_param_desc& p, const std::string& text, int64_t* out) {
  if (p.type != CCT_PARAM_BYTES) return parse_number(text, out);
  const std::optional<int64_t> bytes = parse_bytes(text);
  if (bytes) *out = *bytes;
  return bytes.has_value() || parse_number(text, out);
}

// Why a row is malformed, or empty when `row` was filled from it.
std::string parse_row(const std::string& line, ResultRow* row) {
  const std::vector<std::string> f = split(line, ',');
  if (f.size() != kColumns)
    return "expected " + std::to_string(kColumns) + " columns, found " + std::to_string(f.size());
  if (!is_name(f[0]) || !is_name(f[1]) || !is_name(f[4]))
    return "collective, transport and algorithm must be [a-z0-9_]+ names";
  row->collective = f[0];
  row->transport = f[1];
  row->algorithm = f[4];
  row->params = f[5];
  PointResult& r = row->result;
  if (!parse_number(f[2], &row->np) || row->np < 1) return "bad np '" + f[2] + "'";
  if (!parse_number(f[3], &row->bytes) || row->bytes < 0) return "bad bytes '" + f[3] + "'";
  if (!parse_number(f[6], &r.median_s) || !parse_number(f[7], &r.min_s) ||
      !parse_number(f[8], &r.max_s))
    return "bad seconds in '" + f[6] + "," + f[7] + "," + f[8] + "'";
  if (!parse_number(f[9], &r.reps) || r.reps < 1) return "bad reps '" + f[9] + "'";
  if (!parse_stage(f[10], &row->stage))
    return "bad stage '" + f[10] + "' (expected pruned, final, crossover or check)";
  return "";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read results file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Cuts off a partial last line (a crash mid-write) and checks the header,
// so that appended rows start on a line of their own. Returns whether the
// file already has its header.
bool prepare_for_append(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::exists(path)) return false;
  const std::string text = read_file(path);
  const std::size_t last_newline = text.rfind('\n');
  const std::size_t complete = last_newline == std::string::npos ? 0 : last_newline + 1;
  if (complete != text.size()) fs::resize_file(path, complete);
  if (complete == 0) return false;
  if (text.compare(0, text.find('\n'), kResultsHeader) != 0)
    throw Error(path + ":1: not a results file (header is not '" + kResultsHeader + "')",
                CCT_ERR_INVALID_ARG);
  return true;
}

}  // namespace

const char* stage_name(Stage stage) {
  switch (stage) {
    case Stage::kPruned: return "pruned";
    case Stage::kFinal: return "final";
    case Stage::kCrossover: return "crossover";
    case Stage::kCheck: return "check";
  }
  return "?";
}

std::string ResultRow::key() const {
  return collective + "," + transport + "," + std::to_string(np) + "," + std::to_string(bytes) +
         "," + algorithm + "," + params;
}

std::string format_params(const cct_algorithm_desc& alg, std::span<const int64_t> values) {
  std::string out;
  for (uint32_t i = 0; i < alg.nparams && i < values.size(); ++i)
    out += (i ? ";" : "") + std::string(alg.params[i].name) + "=" +
           format_param(alg.params[i], values[i]);
  return out;
}

std::vector<int64_t> parse_params(const cct_algorithm_desc& alg, const std::string& text) {
  std::vector<int64_t> values(alg.nparams);
  std::vector<bool> seen(alg.nparams);
  auto fail = [&](const std::string& why) {
    return Error(std::string(alg.name) + ": parameters '" + text + "': " + why,
                 CCT_ERR_INVALID_ARG);
  };
  for (const std::string& item : text.empty() ? std::vector<std::string>{} : split(text, ';')) {
    const std::size_t eq = item.find('=');
    uint32_t i = 0;
    while (i < alg.nparams && item.compare(0, eq, alg.params[i].name) != 0) ++i;
    if (eq == std::string::npos || i == alg.nparams) throw fail("unknown item '" + item + "'");
    if (seen[i]) throw fail(std::string(alg.params[i].name) + " given twice");
    if (!parse_value(alg.params[i], item.substr(eq + 1), &values[i]))
      throw fail("bad value in '" + item + "'");
    seen[i] = true;
  }
  for (uint32_t i = 0; i < alg.nparams; ++i)
    if (!seen[i]) throw fail(std::string(alg.params[i].name) + " is missing");
  return values;
}

ResultsWriter::ResultsWriter(const std::string& path) : path_(path) {
  const bool has_header = prepare_for_append(path);
  out_.open(path, std::ios::app);
  if (!out_) throw Error("cannot write results file " + path);
  if (!has_header) out_ << kResultsHeader << '\n' << std::flush;
}

void ResultsWriter::append(const ResultRow& row) {
  const PointResult& r = row.result;
  out_ << row.key() << ',' << format_seconds(r.median_s) << ',' << format_seconds(r.min_s) << ','
       << format_seconds(r.max_s) << ',' << r.reps << ',' << stage_name(row.stage) << '\n'
       << std::flush;
  if (!out_) throw Error("cannot write results file " + path_);
}

std::vector<ResultRow> read_results(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  const std::vector<std::string> lines = split(read_file(path), '\n');
  // The piece after the last newline is empty, or a row cut off by a crash.
  const std::size_t complete = lines.size() - 1;
  if (complete == 0) return {};
  if (lines[0] != kResultsHeader)
    throw Error(path + ":1: not a results file (header is not '" + kResultsHeader + "')",
                CCT_ERR_INVALID_ARG);
  std::vector<ResultRow> rows;
  for (std::size_t i = 1; i < complete; ++i) {
    ResultRow row;
    if (std::string why = parse_row(lines[i], &row); !why.empty())
      throw Error(path + ":" + std::to_string(i + 1) + ": " + why, CCT_ERR_INVALID_ARG);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::set<std::string> finished_keys(const std::vector<ResultRow>& rows) {
  std::set<std::string> keys;
  for (const ResultRow& row : rows) keys.insert(row.key());
  return keys;
}

}  // namespace cct::tuner
