#!/bin/bash
# The instructions a call spends in MPI_<X> outside the algorithm (issue 49, ninth stop): on rank 0
# of 2, 2400 8-byte calls of osu_style_bench's loop, forced to a project algorithm, under callgrind:
# MPI_<X> less cct::Plan::run, less runtime_of (which makes the communicator's runtime on the
# first call) and less the Plan's making (the algorithm's setup, whose waits vary from run to run),
# inclusive, / 2400. Valgrind's callgrind, its files in a temporary folder.
# usage: stop9_path_instructions.sh LIB PROFILE   (from the repository root)
lib=$(realpath "$1")  # the interposer: build/lib/libcct_mpi.so, or another build's
P=$(realpath "$2")
bench=$(realpath build/bin/osu_style_bench)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Run from a folder of its own: from the repository root callgrind_annotate names some sources
# relative to it and leaves the [object] off lines that the patterns below need.
cd "$out"
for pair in barrier:dissemination bcast:binomial gather:linear scatter:linear allgather:ring \
  alltoall:pairwise reduce:binomial allreduce:recursive_doubling scan:recursive_doubling; do
  c=${pair%%:*} a=${pair#*:}
  rm -f "$out"/cg.*
  mpirun --allow-run-as-root -np 2 -x LD_PRELOAD=$lib -x CCT_PROFILE=$P -x CCT_FORCE="$c:0-max:$a" \
    valgrind --tool=callgrind --callgrind-out-file=$out/cg.%q{OMPI_COMM_WORLD_RANK} \
    "$bench" loop $c 8 2400 >/dev/null 2>&1
  name=MPI_$(echo ${c:0:1} | tr a-z A-Z)${c:1}
  callgrind_annotate --inclusive=yes $out/cg.0 2>/dev/null | awk -v f=":$name \\\\[" -v c=$c -v a=$a '
    { n = $1; gsub(",", "", n); n += 0 }
    $0 ~ f && n > x { x = n }
    /cct::Plan::run\(cct_coll_args const&\) \[/ && n > p { p = n }
    /runtime_of\(ompi_communicator_t\*\) \[/ && n > r { r = n }
    /cct::Plan::Plan\(/ && n > m { m = n }
    END { printf "%s %s %d\n", c, a, (x - p - r - m) / 2400 }'
done
