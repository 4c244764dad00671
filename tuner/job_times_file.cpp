#include "tuner/job_times_file.hpp"

#include <filesystem>
#include <fstream>

#include "cct/error.hpp"
#include "tuner/csv_reader.hpp"
#include "tuner/parse_number.hpp"

namespace cct::tuner {
namespace {

constexpr char kHeader[] = "pass,transport,nodes,np,wall_s,timed_s,grid_timed_s";

// Why the fields of a line are malformed, or empty when `record` was
// filled from them.
// f: the fields in kHeader's order; nodes empty in a file without them.
std::string parse_fields(const std::string (&f)[7], JobRecord* record) {
  if (!parse_number(f[0], &record->pass) || (record->pass != 1 && record->pass != 2))
    return "bad pass '" + f[0] + "' (expected 1 or 2)";
  if (f[1].empty()) return "no transport";
  record->transport = f[1];
  if (!f[2].empty() && (!parse_number(f[2], &record->nodes) || record->nodes < 1))
    return "bad nodes '" + f[2] + "'";
  if (!parse_number(f[3], &record->np) || record->np < 1) return "bad np '" + f[3] + "'";
  if (!parse_number(f[4], &record->wall_s) || !parse_number(f[5], &record->timed_s) ||
      !parse_number(f[6], &record->grid_timed_s) || !(record->wall_s >= 0) ||
      !(record->timed_s >= 0) || !(record->grid_timed_s >= 0))
    return "bad seconds in '" + f[4] + "," + f[5] + "," + f[6] + "'";
  return "";
}

}  // namespace

std::string job_times_path(const std::string& results) {
  return std::filesystem::path(results).replace_extension(".jobs").string();
}

void append_job_record(const std::string& path, const JobRecord& r) {
  std::vector<JobRecord> records;
  std::string header;
  std::getline(std::ifstream(path), header);
  // A file of an older format is written anew in this one, its records first.
  if (!header.empty() && header != kHeader) {
    records = read_job_records(path);
    std::filesystem::remove(path);
  }
  records.push_back(r);
  const bool is_new = !std::filesystem::exists(path);
  std::ofstream out(path, std::ios::app);
  if (is_new) out << kHeader << "\n";
  for (const JobRecord& each : records)
    out << each.pass << "," << each.transport << "," << each.nodes << "," << each.np << ","
        << each.wall_s << "," << each.timed_s << "," << each.grid_timed_s << "\n";
  if (!out.flush()) throw Error("cannot write the job times " + path);
}

std::vector<JobRecord> read_job_records(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  std::vector<JobRecord> records;
  try {
    io::CSVReader<7, io::trim_chars<>, io::no_quote_escape<','>> in(path);
    // A file without the nodes column: jobs of one node (parse_fields).
    in.read_header(io::ignore_missing_column, "pass", "transport", "nodes", "np", "wall_s",
                   "timed_s", "grid_timed_s");
    for (std::string f[7]; in.read_row(f[0], f[1], f[2], f[3], f[4], f[5], f[6]);) {
      JobRecord record;
      if (std::string why = parse_fields(f, &record); !why.empty())
        throw Error(path + ":" + std::to_string(in.get_file_line()) + ": " + why,
                    CCT_ERR_INVALID_ARG);
      records.push_back(std::move(record));
    }
  } catch (const io::error::base& e) {
    throw Error(path + ": " + e.what(), CCT_ERR_INVALID_ARG);
  }
  return records;
}

}  // namespace cct::tuner
