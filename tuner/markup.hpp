// ccautotune tuner: text made safe for HTML and SVG, which the report
// writes from strings of the results file and ccbench's output.
#pragma once

#include <string>
#include <string_view>

namespace cct::tuner {

// text with &, <, >, " and ' as entities: safe inside an element and inside
// a quoted attribute alike.
std::string escape_markup(std::string_view text);

}  // namespace cct::tuner
