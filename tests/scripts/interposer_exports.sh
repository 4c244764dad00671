#!/usr/bin/env bash
# The README's list of the MPI calls the interposer defines is the list
# libcct_mpi.so exports: every MPI_* C function it defines, no more, no
# less; each also under the five Fortran names Open MPI's Fortran layer
# gives it (mpi_x, mpi_x_, mpi_x__, MPI_X, ompi_x_f: interposer/fortran.cpp);
# and nothing else (interposer/exports.map keeps the runtime's own
# symbols inside).
# usage: interposer_exports.sh <libcct_mpi.so> <README.md>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
library=$1
readme=$2
nm -D --defined-only "$library" | awk '$2 == "T" {print $3}' | sort >"$dir/all"
grep -E '^MPI_[A-Z][a-z]' "$dir/all" >"$dir/exported" || fail "$library exports no MPI_ function"
# The paragraph from "The interposer defines" to the next blank line.
awk '/The interposer defines/ {on = 1} on && /^$/ {exit} on' "$readme" |
  grep -o '`MPI_[A-Za-z_]*`' | tr -d '`' | sort -u >"$dir/readme"
[ -s "$dir/readme" ] || fail "no paragraph 'The interposer defines' in $readme"
diff -u --label README --label "$(basename "$library")" "$dir/readme" "$dir/exported" >"$dir/diff" ||
  fail "the README's list of the interposer's calls is not what the library exports" "$dir/diff"
# Every C call and its Fortran names, and nothing more.
while read -r c; do
  lower=$(echo "${c#MPI_}" | tr 'A-Z' 'a-z')
  upper=$(echo "${c#MPI_}" | tr 'a-z' 'A-Z')
  printf '%s\n' "$c" "mpi_$lower" "mpi_${lower}_" "mpi_${lower}__" "MPI_$upper" "ompi_${lower}_f"
done <"$dir/readme" | sort >"$dir/wanted"
diff -u --label wanted --label "$(basename "$library")" "$dir/wanted" "$dir/all" >"$dir/diff" ||
  fail "the library's exports are not the C calls and their Fortran names" "$dir/diff"
echo "PASS: the README names the $(wc -l <"$dir/exported") MPI calls the interposer exports," \
  "each with its 5 Fortran names, and nothing else is exported"
