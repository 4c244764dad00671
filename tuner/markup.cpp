#include "tuner/markup.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace cct::tuner {

std::string escape_markup(std::string_view text) {
  static constexpr std::array<std::pair<char, std::string_view>, 5> kEntities{
      {{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}}};
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto* entity = std::find_if(kEntities.begin(), kEntities.end(),
                                      [c](const auto& e) { return e.first == c; });
    if (entity == kEntities.end())
      out += c;
    else
      out += entity->second;
  }
  return out;
}

}  // namespace cct::tuner
