# Sourced by tools/sanitize.sh and tools/tsan.sh. sanitizer_build <dir>
# <cmake options> [target...]: configures <dir> with the options, one
# word, space-separated (-DCCT_ASAN_UBSAN=ON, -DCCT_TSAN=ON, ...) and
# builds the targets (none: all),
# -j2, through ccache where present (tools/compiler_cache.sh).
#
# -O1 -g1: the least optimisation the sanitizers' documentation calls
# reasonable for speed, and line tables, which is all a report needs for
# its functions, files and lines; a compile takes about half as long as
# with -O2 -g (docs/reliability.md). At -O1 under ASan, GCC 12 warns of
# uninitialised members inside std::regex and std::function (from CLI11
# and the tests) that are not there; the normal build keeps that warning.
source "$(dirname "${BASH_SOURCE[0]}")/compiler_cache.sh"
sanitizer_build() {
  local dir=$1 options=$2 flags="-O1 -g1 -DNDEBUG -Wno-maybe-uninitialized"
  shift 2
  local targets=()
  [ $# -eq 0 ] || targets=(--target "$@")
  # shellcheck disable=SC2086 # the options are meant to split
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo $options \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
    >/dev/null &&
    cmake --build "$dir" -j2 "${targets[@]}"
}
