#include "tuner/kept_shortlists.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cct/error.hpp"
#include "tuner/kept_file.hpp"
#include "tuner/parse_number.hpp"

namespace cct::tuner {
namespace {

// The records of the file at path, a later one of a job replacing an
// earlier one; none where it does not exist. Throws cct::Error naming the
// file and line of a malformed one.
std::map<JobId, Shortlist> read_kept(const std::string& path) {
  std::map<JobId, Shortlist> kept;
  std::ifstream in(path);
  int line_no = 0;
  const auto bad = [&](const std::string& why) {
    return Error(path + ":" + std::to_string(line_no) + ": " + why, CCT_ERR_INVALID_ARG);
  };
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    std::istringstream fields(line);
    std::string word, transport, lines_text;
    std::size_t lines = 0;
    if (!std::getline(fields, word, '\t') || word != "shortlist" ||
        !std::getline(fields, transport, '\t') || !std::getline(fields, lines_text) ||
        transport.empty() || !parse_number(lines_text, &lines))
      throw bad("expected 'shortlist<TAB>transport<TAB>lines', got '" + line + "'");
    const int first = line_no;
    std::string text;
    for (std::size_t i = 0; i < lines && std::getline(in, line); ++i, ++line_no)
      text += line + "\n";
    const int read = line_no - first;
    line_no = first;  // a record's errors name its first line
    if (read != static_cast<int>(lines))
      throw bad("the file ends after " + std::to_string(read) + " of the shortlist's " +
                lines_text + " lines");
    try {
      Shortlist shortlist = read_shortlist(text);
      kept[{transport, shortlist.nodes, shortlist.np}] = std::move(shortlist);
    } catch (const Error& e) {
      throw bad(e.what());
    }
    line_no = first + read;
  }
  return kept;
}

}  // namespace

std::string kept_shortlists_path(const std::string& results) {
  return std::filesystem::path(results).replace_extension(".shortlists").string();
}

KeptShortlists::KeptShortlists(const std::string& results, bool resume)
    : path_(kept_shortlists_path(results)) {
  open_kept_file(
      path_, resume, [&] { kept_ = read_kept(path_); }, "second jobs make their shortlists again");
}

std::optional<Shortlist> KeptShortlists::find(const JobId& job) const {
  const auto it = kept_.find(job);
  if (it == kept_.end()) return std::nullopt;
  return it->second;
}

void KeptShortlists::keep(const std::string& transport, const Shortlist& shortlist) {
  kept_[{transport, shortlist.nodes, shortlist.np}] = shortlist;
  const std::string text = write_shortlist(shortlist);
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  std::ofstream out(path_, std::ios::app);
  out << "shortlist\t" << transport << '\t' << lines << '\n' << text;
  if (!out.flush())
    std::cout << "ccautotune: cannot write the shortlists " << path_
              << "; a resumed run makes its shortlists again" << std::endl;
}

}  // namespace cct::tuner
