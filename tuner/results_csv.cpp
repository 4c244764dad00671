#include "tuner/results_csv.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>

#include "cct/collectives.hpp"
#include "cct/count_pattern.hpp"
#include "cct/error.hpp"
#include "cct/files.hpp"
#include "cct/units.hpp"
#include "tuner/csv_reader.hpp"
#include "tuner/parse_number.hpp"

namespace cct::tuner {
namespace {

constexpr std::size_t kColumns = 16;  // of the current format
constexpr Stage kStages[] = {Stage::kPruned, Stage::kFinal,   Stage::kCrossover, Stage::kCheck,
                             Stage::kFailed, Stage::kConfirm, Stage::kReconfirm, Stage::kTyped,
                             Stage::kRooted, Stage::kRecheck};

// "pruned, final, ... or recheck", for an error naming what a stage may be.
std::string stage_names() {
  std::string names;
  for (std::size_t i = 0; i < std::size(kStages); ++i)
    names += (i == 0                        ? ""
              : i + 1 == std::size(kStages) ? " or "
                                            : ", ") +
             std::string(stage_name(kStages[i]));
  return names;
}

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

// The layouts of a results file, told apart by the header.
enum class Format { kCurrent, kNoRoot, kNoDatatype, kNoCounts, kNoNote, kSingleNode };

// The format a header line announces; cct::Error with path:1 when none.
Format format_of(const std::string& path, std::string_view header) {
  if (header == kResultsHeader) return Format::kCurrent;
  if (header == kResultsHeaderNoRoot) return Format::kNoRoot;
  if (header == kResultsHeaderNoDatatype) return Format::kNoDatatype;
  if (header == kResultsHeaderNoCounts) return Format::kNoCounts;
  if (header == kResultsHeaderNoNote) return Format::kNoNote;
  if (header == kResultsHeaderSingleNode) return Format::kSingleNode;
  throw Error(path + ":1: not a results file (header is not '" + kResultsHeader + "')",
              CCT_ERR_INVALID_ARG);
}

// RFC 4180 fields: no trimming, '"' quotes a field and doubles inside one.
using CsvReader = io::CSVReader<kColumns, io::trim_chars<>, io::double_quote_escape<',', '"'>>;
using Fields = std::array<std::string, kColumns>;

// Why a row's root column is wrong, or empty when row->root was set from
// it: a root of the communicator, on a rooted collective's row of the
// roots' step; nothing on any other row but a failed one.
std::string parse_root(const std::string& text, ResultRow& row, const CollectiveInfo* info) {
  const bool rooted = row.stage == Stage::kRooted;
  if (text.empty()) {
    if (rooted) return "a rooted row names its root, and only it";
    return "";
  }
  int root = 0;
  if (!parse_number(text, &root) || root < 0 || root >= row.np)
    return "bad root '" + text + "' (expected a rank below np " + std::to_string(row.np) + ")";
  if (info == nullptr || !info->rooted)
    return "root '" + text + "' on " + row.collective + ", which has no root";
  if (!rooted && row.stage != Stage::kFailed) return "a rooted row names its root, and only it";
  row.root = root;
  return "";
}

// Why the fields of a row (current layout) are malformed, or empty when
// `row` was filled from them.
std::string parse_fields(const Fields& f, ResultRow* row) {
  if (!is_name(f[0]) || !is_name(f[1]) || !is_name(f[5]))
    return "collective, transport and algorithm must be [a-z0-9_]+ names";
  row->collective = f[0];
  row->transport = f[1];
  row->algorithm = f[5];
  // The older form separated parameters with ';'; values hold neither.
  row->params = f[6];
  std::replace(row->params.begin(), row->params.end(), ';', ',');
  PointResult& r = row->result;
  if (!parse_number(f[2], &row->nodes) || row->nodes < 1) return "bad nodes '" + f[2] + "'";
  if (!parse_number(f[3], &row->np) || row->np < 1) return "bad np '" + f[3] + "'";
  if (row->np < row->nodes) return "np " + f[3] + " is below nodes " + f[2];
  if (!parse_number(f[4], &row->bytes) || row->bytes < 0) return "bad bytes '" + f[4] + "'";
  if (!parse_number(f[7], &r.median_s) || !parse_number(f[8], &r.min_s) ||
      !parse_number(f[9], &r.max_s))
    return "bad seconds in '" + f[7] + "," + f[8] + "," + f[9] + "'";
  if (!parse_stage(f[11], &row->stage))
    return "bad stage '" + f[11] + "' (expected " + stage_names() + ")";
  // A failed point has no figures: its reps are 0.
  const int least_reps = row->stage == Stage::kFailed ? 0 : 1;
  if (!parse_number(f[10], &r.reps) || r.reps < least_reps) return "bad reps '" + f[10] + "'";
  row->note = f[12];
  row->counts = f[13];
  const CollectiveInfo* info = find_collective(row->collective);
  const bool vector = info != nullptr && info->vector();
  // Rows from before the counts column: vector collectives were measured in equal blocks.
  if (vector && row->counts.empty()) row->counts = count_pattern_name(CountPattern::kEqual);
  row->datatype = f[14];
  cct_datatype type;
  if (!row->datatype.empty() && !parse_datatype(row->datatype, &type))
    return "bad datatype '" + f[14] + "' (expected int32, float, double, ...)";
  if (!row->datatype.empty() && (info == nullptr || !info->reduction))
    return "datatype '" + f[14] + "' on " + row->collective + ", which is no reduction";
  // A typed row names its type and no other row does; a failed one may.
  const bool typed = row->stage == Stage::kTyped;
  if (row->stage != Stage::kFailed && typed == row->datatype.empty())
    return "a typed row names its datatype, and only it";
  if (std::string why = parse_root(f[15], *row, info); !why.empty()) return why;
  if (!vector && !row->counts.empty())
    return "counts '" + f[13] + "' on " + row->collective + ", which has no per-rank counts";
  if (vector && !parse_count_patterns(row->counts))
    return "bad counts '" + f[13] + "' (expected equal, skewed or equal+skewed)";
  return "";
}

// The rows of complete lines (each ending in '\n', the header first).
std::vector<ResultRow> parse_rows(std::string_view complete, const std::string& source) {
  format_of(source, complete.substr(0, complete.find('\n')));
  CsvReader in(source, complete.data(), complete.data() + complete.size());
  // Older formats lack the nodes column (their rows keep 1), the note,
  // the counts, the datatype or the root.
  in.read_header(io::ignore_missing_column, "collective", "transport", "nodes", "np", "bytes",
                 "algorithm", "params", "median_s", "min_s", "max_s", "reps", "stage", "note",
                 "counts", "datatype", "root");
  std::vector<ResultRow> rows;
  for (Fields f;;) {
    f[2] = "1";
    f[12].clear();
    f[13].clear();
    f[14].clear();
    f[15].clear();
    const bool read = std::apply([&](auto&... field) { return in.read_row(field...); }, f);
    if (!read) return rows;
    ResultRow row;
    if (std::string why = parse_fields(f, &row); !why.empty())
      throw Error(source + ":" + std::to_string(in.get_file_line()) + ": " + why,
                  CCT_ERR_INVALID_ARG);
    rows.push_back(std::move(row));
  }
}

// What the CSV reader found wrong, in the words of the other messages.
std::string csv_problem(const io::error::base& e) {
  if (dynamic_cast<const io::error::too_few_columns*>(&e)) return "too few columns";
  if (dynamic_cast<const io::error::too_many_columns*>(&e)) return "too many columns";
  if (dynamic_cast<const io::error::escaped_string_not_closed*>(&e))
    return "a quoted field is not closed";
  return e.what();
}

// The same, with the CSV reader's complaints (an unclosed quote, a row of
// too many columns) as cct::Error naming the file and line.
std::vector<ResultRow> parse_complete(std::string_view complete, const std::string& source) {
  try {
    return parse_rows(complete, source);
  } catch (const io::error::base& e) {
    const auto* at = dynamic_cast<const io::error::with_file_line*>(&e);
    throw Error(source + ":" + (at ? std::to_string(at->file_line) : "?") + ": " + csv_problem(e),
                CCT_ERR_INVALID_ARG);
  }
}

// A field as RFC 4180 writes it: quoted where it holds a separator or quote.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_line(const ResultRow& row) {
  const PointResult& r = row.result;
  const std::string fields[kColumns] = {row.collective,
                                        row.transport,
                                        std::to_string(row.nodes),
                                        std::to_string(row.np),
                                        std::to_string(row.bytes),
                                        row.algorithm,
                                        row.params,
                                        format_seconds(r.median_s),
                                        format_seconds(r.min_s),
                                        format_seconds(r.max_s),
                                        std::to_string(r.reps),
                                        stage_name(row.stage),
                                        row.note,
                                        row.counts,
                                        row.datatype,
                                        row.root ? std::to_string(*row.root) : ""};
  std::string line;
  for (const std::string& f : fields) line += (line.empty() ? "" : ",") + csv_field(f);
  return line + "\n";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read results file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Cuts off a partial last line (a crash mid-write) and checks the header,
// so that appended rows start on a line of their own; converts a file of
// an older format to the current one (every row checked on the way).
// Returns whether the file already has its header.
bool prepare_for_append(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::exists(path)) return false;
  const std::string text = read_file(path);
  const std::size_t last_newline = text.rfind('\n');
  const std::size_t complete = last_newline == std::string::npos ? 0 : last_newline + 1;
  if (complete != text.size()) fs::resize_file(path, complete);
  if (complete == 0) return false;
  const std::string_view header(text.data(), text.find('\n'));
  if (format_of(path, header) != Format::kCurrent) {
    std::string converted = std::string(kResultsHeader) + "\n";
    for (const ResultRow& row : parse_complete(std::string_view(text).substr(0, complete), path))
      converted += csv_line(row);
    write_file_atomically(path, converted,
                          static_cast<mode_t>(fs::status(path).permissions() & fs::perms::mask),
                          "cannot convert results file");
  }
  return true;
}

}  // namespace

const char* stage_name(Stage stage) {
  switch (stage) {
    case Stage::kPruned: return "pruned";
    case Stage::kFinal: return "final";
    case Stage::kCrossover: return "crossover";
    case Stage::kCheck: return "check";
    case Stage::kFailed: return "failed";
    case Stage::kConfirm: return "confirm";
    case Stage::kReconfirm: return "reconfirm";
    case Stage::kTyped: return "typed";
    case Stage::kRooted: return "rooted";
    case Stage::kRecheck: return "recheck";
  }
  return "?";
}

std::string ResultRow::key() const {
  return collective + "," + transport + "," + std::to_string(nodes) + "," + std::to_string(np) +
         "," + std::to_string(bytes) + "," + algorithm + "," + params +
         (counts.empty() ? "" : " [" + counts + "]") + (datatype.empty() ? "" : " as " + datatype) +
         (root ? " at root " + std::to_string(*root) : "") +
         // Timed again in a later job, a row has a key of its own.
         (is_confirmation(stage) || stage == Stage::kRecheck ? std::string(" ") + stage_name(stage)
                                                             : "");
}

std::string ResultRow::candidate() const {
  return collective + "," + transport + "," + std::to_string(nodes) + "," + std::to_string(np) +
         "," + algorithm + "," + params;
}

std::string ResultRow::choice() const {
  return params.empty() ? algorithm : algorithm + "(" + params + ")";
}

std::string format_params(const cct_algorithm_desc& alg, std::span<const int64_t> values) {
  std::string out;
  for (uint32_t i = 0; i < alg.nparams && i < values.size(); ++i)
    out += (i ? "," : "") + std::string(alg.params[i].name) + "=" +
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
  std::string items = text;
  std::replace(items.begin(), items.end(), ';', ',');
  for (const std::string& item : items.empty() ? std::vector<std::string>{} : split(items, ',')) {
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
  fd_ = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot write results file " + path + ": " + std::strerror(errno));
  if (!has_header) write_all(std::string(kResultsHeader) + "\n");
}

ResultsWriter::~ResultsWriter() {
  if (fd_ >= 0) close(fd_);
}

void ResultsWriter::append(const ResultRow& row) {
  write_all(csv_line(row));
}

void ResultsWriter::write_all(const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw Error("cannot write results file " + path_ + ": " + std::strerror(errno) +
                  (done > 0 ? " (the row was cut short; the next run drops it)" : ""));
    done += static_cast<std::size_t>(n);
  }
}

std::string results_text(const std::string& path) {
  return std::filesystem::exists(path) ? read_file(path) : std::string();
}

std::vector<ResultRow> parse_results(const std::string& text, const std::string& source) {
  // What follows the last newline is empty, or a row cut off by a crash.
  const std::size_t last_newline = text.rfind('\n');
  if (last_newline == std::string::npos) return {};
  return parse_complete(std::string_view(text).substr(0, last_newline + 1), source);
}

std::vector<ResultRow> read_results(const std::string& path) {
  return parse_results(results_text(path), path);
}

std::string profile_beside(const std::string& results) {
  return std::filesystem::path(results).replace_extension(".yaml").string();
}

ResultRow failed_row(const std::string& key, const std::string& why) {
  Fields f;
  // A rooted collective's root follows " at root ", a reduction's own
  // element type " as ", a vector collective's counts " [".
  std::string columns = key;
  if (const std::size_t at = key.rfind(" at root "); at != std::string::npos) {
    f[15] = key.substr(at + 9);
    columns.resize(at);
  }
  if (const std::size_t as = columns.rfind(" as "); as != std::string::npos) {
    f[14] = columns.substr(as + 4);
    columns.resize(as);
  }
  if (const std::size_t open = columns.rfind(" [");
      open != std::string::npos && columns.back() == ']') {
    f[13] = columns.substr(open + 2, columns.size() - open - 3);
    columns.resize(open);
  }
  std::size_t start = 0;
  for (std::size_t i = 0; i < 6; ++i) {  // the params, last, may hold commas
    const std::size_t comma = columns.find(',', start);
    if (comma == std::string::npos) throw Error("not a point's key: '" + key + "'");
    f[i] = columns.substr(start, comma - start);
    start = comma + 1;
  }
  f[6] = columns.substr(start);
  f[7] = f[8] = f[9] = f[10] = "0";
  f[11] = stage_name(Stage::kFailed);
  f[12] = why;
  ResultRow row;
  if (const std::string problem = parse_fields(f, &row); !problem.empty())
    throw Error("not a point's key: '" + key + "': " + problem);
  return row;
}

std::set<std::string> failed_candidates(const std::map<std::string, ResultRow>& known) {
  std::set<std::string> failed;
  for (const auto& [key, row] : known)
    if (row.stage == Stage::kFailed) failed.insert(row.candidate());
  return failed;
}

std::set<std::string> failed_candidates(std::span<const ResultRow> rows) {
  std::set<std::string> failed;
  for (const ResultRow& row : rows)
    if (row.stage == Stage::kFailed) failed.insert(row.candidate());
  return failed;
}

std::set<std::string> finished_keys(const std::vector<ResultRow>& rows) {
  std::set<std::string> keys;
  for (const ResultRow& row : rows) keys.insert(row.key());
  return keys;
}

}  // namespace cct::tuner
