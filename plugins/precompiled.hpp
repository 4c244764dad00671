// The headers most plugin sources include, precompiled once for every
// plugin built in this tree (plugins/CMakeLists.txt): parsing them was
// over half of a typical plugin file's compile time (0.8 of 1.4 s on a
// 2-core machine). Out-of-tree plugins compile as before.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/args.hpp"
#include "common/rooted.hpp"
#include "common/scratch.hpp"
