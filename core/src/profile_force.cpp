// The CCT_FORCE grammar:
//   force := rule (';' rule)*          empty rules (a trailing ';') are skipped
//   rule  := collective ':' size '-' size ':' name [ '(' param (',' param)* ')' ]
//   param := name '=' value            value: an integer or a size (64k)
//   size  := digits [k|M|G] | 'max'    (max only as the upper end)
// Whitespace is allowed around rules only. Errors name the rule and the
// 1-based character position in the whole text.
#include <algorithm>
#include <cctype>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/units.hpp"
#include "profile_check.hpp"

namespace cct {
namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

class ForceParser {
 public:
  ForceParser(std::string_view text, const Registry* registry, std::vector<std::string>* skipped)
      : text_(text), registry_(registry), skipped_(skipped) {}

  std::vector<ForceRule> parse() {
    std::vector<ForceRule> rules;
    for (std::size_t begin = 0; begin <= text_.size();) {
      std::size_t end = std::min(text_.find(';', begin), text_.size());
      while (begin < end && std::isspace(static_cast<unsigned char>(text_[begin]))) ++begin;
      std::size_t last = end;
      while (last > begin && std::isspace(static_cast<unsigned char>(text_[last - 1]))) --last;
      ++number_;
      if (begin < last) add(begin, last, &rules);
      begin = end + 1;
    }
    return rules;
  }

 private:
  // One rule; a bad one is skipped with its reason when the caller asked
  // for that, and the rules after it still apply.
  void add(std::size_t begin, std::size_t end, std::vector<ForceRule>* rules) {
    try {
      rules->push_back(rule(begin, end));
    } catch (const Error& e) {
      if (skipped_ == nullptr) throw;
      skipped_->push_back(e.what());
    }
  }

  [[noreturn]] void fail(std::size_t pos, const std::string& what) const {
    throw Error("CCT_FORCE rule " + std::to_string(number_) + " '" +
                    std::string(text_.substr(begin_, end_ - begin_)) + "' at character " +
                    std::to_string(pos + 1) + ": " + what,
                CCT_ERR_INVALID_ARG);
  }

  // The text from pos up to the first of `stops` (or the rule's end);
  // advances pos to that character.
  std::string token(std::size_t* pos, std::string_view stops) const {
    std::size_t start = *pos;
    while (*pos < end_ && stops.find(text_[*pos]) == std::string_view::npos) ++*pos;
    return std::string(text_.substr(start, *pos - start));
  }

  void expect(std::size_t pos, char c, const char* what) const {
    if (pos >= end_ || text_[pos] != c)
      fail(pos, std::string("expected '") + c + "' " + what +
                    (pos >= end_ ? ", got the end of the rule"
                                 : std::string(", got '") + text_[pos] + "'"));
  }

  ForceRule rule(std::size_t begin, std::size_t end) {
    begin_ = begin;
    end_ = end;
    std::size_t pos = begin;
    ForceRule out;
    const std::string collective = token(&pos, ":");
    if (!parse_collective(collective, &out.collective))
      fail(begin, "unknown collective '" + collective + "'");
    expect(pos++, ':', "after the collective");
    range(&pos, &out.rule);
    expect(pos++, ':', "after the size range");
    algorithm(&pos, out.collective, &out.rule);
    if (pos < end_) fail(pos, "unexpected '" + std::string(text_.substr(pos, end_ - pos)) + "'");
    return out;
  }

  void range(std::size_t* pos, SizeRule* r) const {
    const std::size_t lo_at = *pos;
    const std::string lo = token(pos, "-:");
    auto lo_value = parse_bytes(lo);
    if (!lo_value) fail(lo_at, "expected the range's start (0, 4k, 1M), got '" + lo + "'");
    expect((*pos)++, '-', "between the range's start and end");
    const std::size_t hi_at = *pos;
    const std::string hi = token(pos, ":");
    auto hi_value = detail::parse_size(hi);
    if (!hi_value) fail(hi_at, "expected the range's end (4k, 1M, max), got '" + hi + "'");
    if (*lo_value >= *hi_value) fail(lo_at, "empty range, its start is not below its end");
    r->lo = *lo_value;
    r->hi = *hi_value;
  }

  void algorithm(std::size_t* pos, cct_collective c, SizeRule* r) const {
    const std::size_t at = *pos;
    while (*pos < end_ && name_char(text_[*pos])) ++*pos;
    r->algorithm = std::string(text_.substr(at, *pos - at));
    if (r->algorithm.empty()) fail(at, "expected an algorithm name ([a-z0-9_]+)");
    std::string why;
    if (registry_ && !detail::find_algorithm_or_why(*registry_, c, r->algorithm, &why))
      fail(at, why);
    if (*pos < end_ && text_[*pos] == '(') params(pos, c, r);
  }

  void params(std::size_t* pos, cct_collective c, SizeRule* r) const {
    const AlgorithmEntry* alg = registry_ ? registry_->find_algorithm(c, r->algorithm) : nullptr;
    do {
      ++*pos;  // past '(' or ','
      const std::size_t name_at = *pos;
      const std::string name = token(pos, "=,)");
      if (name.empty() || !std::all_of(name.begin(), name.end(), name_char))
        fail(name_at, "expected a parameter name ([a-z0-9_]+), got '" + name + "'");
      expect((*pos)++, '=', "after the parameter name");
      const std::size_t value_at = *pos;
      const std::string text = token(pos, ",)");
      auto value = detail::parse_param_value(text);
      if (!value) fail(value_at, "expected an integer or a size, got '" + text + "'");
      if (alg)
        if (std::string problem = detail::param_problem(*alg, name, *value); !problem.empty())
          fail(name_at, problem);
      if (!r->params.emplace(name, *value).second)
        fail(name_at, "parameter '" + name + "' given twice");
    } while (*pos < end_ && text_[*pos] == ',');
    expect((*pos)++, ')', "to close the parameter list");
  }

  std::string_view text_;
  const Registry* registry_;
  std::vector<std::string>* skipped_;
  int number_ = 0;
  std::size_t begin_ = 0, end_ = 0;  // the rule being parsed
};

}  // namespace

std::vector<ForceRule> parse_force(std::string_view text, const Registry* registry,
                                   std::vector<std::string>* skipped) {
  return ForceParser(text, registry, skipped).parse();
}

}  // namespace cct
