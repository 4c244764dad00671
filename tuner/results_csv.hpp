// ccautotune tuner: the raw results file, one CSV row per measured point.
//
//   collective,transport,nodes,np,bytes,algorithm,params,median_s,min_s,max_s,reps,stage,note,counts,datatype,root
//   bcast,shm,1,4,65536,knomial,radix=4,1.52e-05,1.41e-05,2.2e-05,37,final,,,,
//   alltoallv,shm,1,4,4096,linear,,3.1e-05,2.9e-05,4.4e-05,31,final,,equal+skewed,,
//   allreduce,shm,1,4,4096,ring,,2.2e-06,2.1e-06,2.9e-06,31,typed,,,double,
//   gather,shm,1,4,4096,linear,,3.3e-06,3.1e-06,4.0e-06,31,rooted,,,,3
//
// nodes and np are the communicator's shape: the nodes it spans and its
// ranks in all. Files written before multi-node tuning lack the nodes
// column (kResultsHeaderSingleNode), and files written before failures
// were recorded lack the note (kResultsHeaderNoNote); they read as nodes 1
// and no note, and a writer appending to one converts it first. counts
// says which count patterns a vector collective's figures are over
// (cct/count_pattern.hpp; tuner/measure.hpp, Call::patterns), empty for the
// other collectives; files written before it (kResultsHeaderNoCounts) read
// as `equal`, what the tuner measured them in then. datatype is a
// reduction's element type where a finalist was measured in one of
// --datatypes (search.hpp, step 6), empty for the rows measured in the
// type the size chooses (measure.hpp, measured_dtype); files written
// before it (kResultsHeaderNoDatatype) have only such rows. root is a
// rooted collective's root where a finalist was timed at root 0 and at
// the last rank (search.hpp, step 7), empty for every other row (timed at
// root 0); files written before it (kResultsHeaderNoRoot) have only such
// rows.
//
// stage says what the row is for (see search.hpp): `pruned`, a candidate
// dropped by successive halving, with the figures of its last screening
// round; `final`, a full measurement at a grid size; `crossover`, a full
// measurement at a size bisecting two grid sizes with different winners;
// `check`, a full measurement at an off-grid size that tests the profile;
// `typed`, a reduction's finalist measured in another element type;
// `rooted`, a rooted collective's finalist measured at root 0 or the last;
// `failed`, a point whose run crashed or failed: its figures are 0, its
// note says why, and its candidate is left out of that shape from then on
// (the search skips it, the profile never picks it).
//
// bytes is a plain integer (tools sort and plot it as a number); params is
// the parameter list of the CCT_FORCE form, `name=value,name=value` in the
// algorithm's table order, empty when it has none, so that
// `algorithm(params)` pastes into CCT_FORCE (ResultRow::choice). Values are
// as the SDK prints them: CCT_PARAM_BYTES values through cct::format_bytes
// (65536 -> "64k", exact), CCT_PARAM_INT values in decimal. Fields are
// quoted the RFC 4180 way where they hold a ',' (params) or a '"'. Rows of
// files written before this form separate parameters with ';'; they read
// as if written with ','. Times are seconds with six significant digits.
//
// Rows are appended and flushed one at a time, so an interrupted run keeps
// every finished point. A last line without its newline is the remains of a
// crash: the reader ignores it and the writer cuts it off before appending.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cct/abi/algorithm.h"
#include "tuner/measure.hpp"

namespace cct::tuner {

inline constexpr const char* kResultsHeader =
    "collective,transport,nodes,np,bytes,algorithm,params,median_s,min_s,max_s,reps,stage,note,"
    "counts,datatype,root";
// The format before the root column, still read.
inline constexpr const char* kResultsHeaderNoRoot =
    "collective,transport,nodes,np,bytes,algorithm,params,median_s,min_s,max_s,reps,stage,note,"
    "counts,datatype";
// The format before the datatype column, still read.
inline constexpr const char* kResultsHeaderNoDatatype =
    "collective,transport,nodes,np,bytes,algorithm,params,median_s,min_s,max_s,reps,stage,note,"
    "counts";
// The format before the counts column, still read.
inline constexpr const char* kResultsHeaderNoCounts =
    "collective,transport,nodes,np,bytes,algorithm,params,median_s,min_s,max_s,reps,stage,note";
// The format before the note column, still read.
inline constexpr const char* kResultsHeaderNoNote =
    "collective,transport,nodes,np,bytes,algorithm,params,median_s,min_s,max_s,reps,stage";
// The format before the nodes column, still read.
inline constexpr const char* kResultsHeaderSingleNode =
    "collective,transport,np,bytes,algorithm,params,median_s,min_s,max_s,reps,stage";

// How a row was measured (search.hpp): a screening round of a candidate
// then pruned; the full timing of a finalist at a grid size; a crossover
// or check size off the grid; a finalist timed again as programs call it
// (Measurer::measure_as_programs), which decides its size where it exists;
// a candidate that crashed or failed (no figure).
// kReconfirm: a confirmation timed again in a second job (fresh
// processes); see search.hpp, step 3. kTyped: a reduction's finalist timed
// again in another element type, its datatype column (step 6), which only
// its type's rules weigh (variant_rules.hpp). kRooted: a rooted
// collective's finalist timed again at root 0 and at the last rank, its
// root column (step 7), which only the rules of roots other than 0 weigh.
// kRecheck: a check timed again in the second job, so that the accuracy
// weighs each candidate by the slower of its two jobs, as the picks it
// checks were (step 5).
enum class Stage {
  kPruned,
  kFinal,
  kCrossover,
  kCheck,
  kFailed,
  kConfirm,
  kReconfirm,
  kTyped,
  kRooted,
  kRecheck
};

// "pruned", "final", "crossover", "check", "failed", "confirm", "reconfirm",
// "typed", "rooted", "recheck".
const char* stage_name(Stage stage);
// A figure of a variant of the call or of its reference (an element type,
// a root: search.hpp, steps 6 and 7), for that variant's rules alone.
inline bool of_variant(Stage stage) {
  return stage == Stage::kTyped || stage == Stage::kRooted;
}
// A figure of an off-grid check (check, or recheck in a second job), which
// only the profile's accuracy weighs (accuracy.hpp).
inline bool is_check(Stage stage) {
  return stage == Stage::kCheck || stage == Stage::kRecheck;
}
// A figure timed as programs call (confirm, or reconfirm in a second job).
inline bool is_confirmation(Stage stage) {
  return stage == Stage::kConfirm || stage == Stage::kReconfirm;
}

struct ResultRow {
  std::string collective;
  std::string transport;
  int nodes = 1;  // the nodes the communicator spans
  int np = 0;
  int64_t bytes = 0;
  std::string algorithm;
  std::string params;
  PointResult result;
  Stage stage = Stage::kFinal;
  std::string note;         // why a failed point failed; empty otherwise
  std::string counts;       // a vector collective's count patterns: "equal+skewed"
  std::string datatype;     // a reduction's own element type ("double"), or empty
  std::optional<int> root;  // a rooted row's root (0 or the last rank), else none

  // What identifies a point: every column before the figures, then
  // " [counts]" where counts is not empty, then " as <datatype>" where
  // datatype is not, then " at root <root>" where the row has one, then
  // " confirm" or " reconfirm" for a confirmation row (its point has a
  // final row too).
  std::string key() const;
  // What identifies its candidate in its shape: the key without the size.
  std::string candidate() const;
  // The algorithm with its parameters as CCT_FORCE takes them:
  // "two_level(level=1,chunk=8k)", or the bare name.
  std::string choice() const;
};

// `name=value,...` for these values of alg's parameters (table order).
std::string format_params(const cct_algorithm_desc& alg, std::span<const int64_t> values);
// The inverse: every parameter of alg named once, in any order (',' or the
// older ';' between them). Throws
// cct::Error naming the algorithm and the offending text.
std::vector<int64_t> parse_params(const cct_algorithm_desc& alg, const std::string& text);

// Appends rows to a results file, creating it with its header, or checking
// the header of an existing one (cct::Error with file:line if it is neither
// format). A file of the format without nodes is first rewritten in the
// current one, atomically (a temporary file, then rename), its rows getting
// nodes 1, so that old and new rows never share a file.
// A write the system refuses (a full disk, a read-only file system) throws
// cct::Error naming the file and the system's reason; a row it cut short
// is the remains of a crash to the reader and the next writer.
class ResultsWriter {
 public:
  explicit ResultsWriter(const std::string& path);
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;
  ~ResultsWriter();
  // Writes one row to the file (one write(2) call where the system allows).
  void append(const ResultRow& row);

 private:
  void write_all(const std::string& text);

  std::string path_;
  int fd_ = -1;
};

// Every finished row of a results file; none when the file does not exist.
// A malformed row gives cct::Error("path:line: why").
std::vector<ResultRow> read_results(const std::string& path);

// The same in two steps, for a file read on one rank and parsed on all:
// the file's text ("" when it does not exist), and the rows of such text,
// `source` standing for the file name in messages.
std::string results_text(const std::string& path);
std::vector<ResultRow> parse_results(const std::string& text, const std::string& source);

// The profile ccautotune writes beside a results file: <fingerprint>.yaml
// next to <fingerprint>.csv.
std::string profile_beside(const std::string& results);

// The keys of rows, for --resume: a point whose key is in it is not measured
// again.
std::set<std::string> finished_keys(const std::vector<ResultRow>& rows);

// The failed row of the point whose key (ResultRow::key) is `key`, failed
// for `why`. Throws cct::Error when key is not one.
ResultRow failed_row(const std::string& key, const std::string& why);

// The candidates (ResultRow::candidate) of the failed rows among the rows
// of earlier runs, by key.
std::set<std::string> failed_candidates(const std::map<std::string, ResultRow>& known);
// The same among rows (a results file's), which a profile never picks.
std::set<std::string> failed_candidates(std::span<const ResultRow> rows);

}  // namespace cct::tuner
