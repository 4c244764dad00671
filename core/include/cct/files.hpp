// ccautotune host library: writing files whose contents took long to make
// (profiles, results) so that a crash never leaves half of one.
#pragma once

#include <sys/types.h>

#include <string>

namespace cct {

// Replaces (or creates) the file at `path` with `text` through a temporary
// file beside it (so that rename() stays on one file system and is atomic:
// readers see the old file or the new one), with permissions `mode`. On
// failure the old file is untouched, the temporary one removed, and
// cct::Error says "<what> <path>: <step>: <system's reason>".
void write_file_atomically(const std::string& path, const std::string& text, mode_t mode,
                           const std::string& what);

}  // namespace cct
