#!/usr/bin/env bash
# Installs this build into a scratch prefix, builds the example plugin out of
# tree against it (find_package(ccautotune)), and checks that the installed
# ccinfo loads that plugin through CCT_PLUGIN_PATH.
# usage: out_of_tree_plugin.sh <build dir> <source dir>
set -euo pipefail
build=$1 src=$2
scratch=$(mktemp -d /tmp/cct-oot-XXXXXX)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
# The example is not installed: only the copy built here provides it.
[ ! -e "$scratch/prefix/lib/cct/libcct_example.so" ] || { echo "FAIL: the example was installed"; exit 1; }
cp -r "$src/plugins/example" "$scratch/example"
cmake -S "$scratch/example" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
plugin=$(find "$scratch/build" -name libcct_example.so)
[ -n "$plugin" ] || { echo "FAIL: the out-of-tree build made no libcct_example.so"; exit 1; }

info=$(CCT_PLUGIN_PATH="$(dirname "$plugin")" "$scratch/prefix/bin/ccinfo" --json)
echo "$info" | grep -q "\"library\":\"$plugin\"" ||
  { echo "FAIL: installed ccinfo did not load $plugin"; echo "$info"; exit 1; }
echo "$info" | grep -q '"name":"example_flat"' || { echo "FAIL: example_flat not listed"; exit 1; }
echo "$info" | grep -q '"name":"shm"' || { echo "FAIL: installed shm transport not found"; exit 1; }
echo "PASS: example plugin built out of tree and loaded from $plugin"
