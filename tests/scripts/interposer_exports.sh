#!/usr/bin/env bash
# The README's list of the MPI calls the interposer defines is the list
# libcct_mpi.so exports: every MPI_* function it defines, no more, no less.
# usage: interposer_exports.sh <libcct_mpi.so> <README.md>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
library=$1
readme=$2
nm -D --defined-only "$library" | awk '$2 == "T" && $3 ~ /^MPI_/ {print $3}' | sort >"$dir/exported"
[ -s "$dir/exported" ] || fail "$library exports no MPI_ function"
# The paragraph from "The interposer defines" to the next blank line.
awk '/The interposer defines/ {on = 1} on && /^$/ {exit} on' "$readme" |
  grep -o '`MPI_[A-Za-z_]*`' | tr -d '`' | sort -u >"$dir/readme"
[ -s "$dir/readme" ] || fail "no paragraph 'The interposer defines' in $readme"
diff -u --label README --label "$(basename "$library")" "$dir/readme" "$dir/exported" >"$dir/diff" ||
  fail "the README's list of the interposer's calls is not what the library exports" "$dir/diff"
echo "PASS: the README names the $(wc -l <"$dir/exported") MPI calls the interposer exports"
