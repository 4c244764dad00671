#!/usr/bin/env bash
# Installs this build into a scratch prefix, builds the example plugin out of
# tree against it (find_package(ccautotune)), and checks that the installed
# ccinfo loads that plugin through CCT_PLUGIN_PATH.
# usage: out_of_tree_plugin.sh <build dir> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$1 src=$2

cmake --install "$build" --prefix "$dir/prefix" >/dev/null
# The example is not installed: only the copy built here provides it.
[ ! -e "$dir/prefix/lib/cct/libcct_example.so" ] || { echo "FAIL: the example was installed"; exit 1; }
cp -r "$src/plugins/example" "$dir/example"
cmake -S "$dir/example" -B "$dir/build" -DCMAKE_PREFIX_PATH="$dir/prefix" >/dev/null
cmake --build "$dir/build" >/dev/null
plugin=$(find "$dir/build" -name libcct_example.so)
[ -n "$plugin" ] || { echo "FAIL: the out-of-tree build made no libcct_example.so"; exit 1; }

info=$(CCT_PLUGIN_PATH="$(dirname "$plugin")" "$dir/prefix/bin/ccinfo" --json)
echo "$info" | grep -q "\"library\":\"$plugin\"" ||
  { echo "FAIL: installed ccinfo did not load $plugin"; echo "$info"; exit 1; }
echo "$info" | grep -q '"name":"example_flat"' || { echo "FAIL: example_flat not listed"; exit 1; }
echo "$info" | grep -q '"name":"shm"' || { echo "FAIL: installed shm transport not found"; exit 1; }
echo "PASS: example plugin built out of tree and loaded from $plugin"
