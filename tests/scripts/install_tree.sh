#!/usr/bin/env bash
# The installed tools meet (issue 14): installed to a prefix chosen at
# install time (not the configure-time one), ccinfo loads the installed
# plugins, the shipped profile is installed, the installed ccautotune writes
# its profile to <prefix>/share/ccautotune/profiles, an MPI program under
# the installed interposer finds and uses that profile, and a C program
# built with the installed pkg-config file runs on the installed runtime.
# usage: install_tree.sh <build dir> <interposer_check> <source dir> <C compiler>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
build=$1 program=$2 src=$3 cc=$4
prefix=$dir/prefix
data=$dir/data
mkdir "$prefix" "$data"
# The user's own profile directory is elsewhere: only the install may answer.
export XDG_DATA_HOME=$data
unset CCT_PROFILE CCT_PROFILE_PATH CCT_PLUGIN_PATH CCT_FORCE
cmake --install "$build" --prefix "$prefix" >"$data/install.log" 2>&1 ||
  fail "cmake --install exited $?" "$data/install.log"
profiles=$prefix/share/ccautotune/profiles
[ -f "$profiles/0b653469f2aadc8a.yaml" ] || fail "the shipped profile is not installed"

"$prefix/bin/ccinfo" >"$data/ccinfo.txt" 2>&1 || fail "installed ccinfo exited $?" "$data/ccinfo.txt"
grep -q "^Plugin libraries (searched $prefix/lib/cct; CCT_PLUGIN_PATH unset):" "$data/ccinfo.txt" ||
  fail "installed ccinfo did not search the installed plugins" "$data/ccinfo.txt"
! grep -q "$build" "$data/ccinfo.txt" || fail "installed ccinfo loaded the build tree" "$data/ccinfo.txt"
fingerprint=$(awk '/^  fingerprint / {print $2}' "$data/ccinfo.txt")
[ -n "$fingerprint" ] || fail "no fingerprint from ccinfo" "$data/ccinfo.txt"

"$prefix/bin/ccautotune" --quick --launcher local --np 2 --collectives bcast,allreduce \
  --max-bytes 4k >"$data/tune.log" 2>&1 || fail "installed ccautotune exited $?" "$data/tune.log"
grep -q "^profile: $profiles/$fingerprint.yaml$" "$data/tune.log" ||
  fail "the installed ccautotune did not write to $profiles" "$data/tune.log"
grep -q "^use it: programs on this machine find it by themselves (\`ccinfo\` shows it); under an MPI program: mpirun -x LD_PRELOAD=$prefix/lib/libcct_mpi.so ... ./app$" \
  "$data/tune.log" || fail "the end of the run does not say how to use the profile" "$data/tune.log"

mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$prefix/lib/libcct_mpi.so" \
  -x CCT_LOG=info -x XDG_DATA_HOME "$program" >"$data/app.out" 2>"$data/app.err" ||
  fail "interposer_check under the installed interposer exited $?" "$data/app.err"
grep -q "0 failures on all ranks$" "$data/app.out" || fail "interposer_check failed" "$data/app.out"
grep -q "^cct: profile $profiles/$fingerprint.yaml (this machine's fingerprint), tuned " \
  "$data/app.err" || fail "the installed runtime did not use the installed profile" "$data/app.err"
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs ccautotune) ||
  fail "pkg-config does not know the installed ccautotune"
# shellcheck disable=SC2086 # the flags are words
"$cc" "$src/tools/cct_example_app.c" $flags -o "$data/app" >"$data/cc.log" 2>&1 ||
  fail "the C example does not build with the pkg-config flags" "$data/cc.log"
"$prefix/bin/cclaunch" -n 2 "$data/app" >"$data/app.log" 2>&1 ||
  fail "the C example built with pkg-config exited $?" "$data/app.log"
grep -q "2 ranks, all results correct" "$data/app.log" || fail "the C example" "$data/app.log"
echo "PASS: installed to $prefix, the tools and the interposer meet in $profiles; pkg-config builds"
