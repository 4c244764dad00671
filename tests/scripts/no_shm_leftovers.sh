#!/usr/bin/env bash
# Runs after every other test (ctest fixture cleanup): nothing of ours may
# remain in /dev/shm, even after failed tests.
left=$(ls /dev/shm 2>/dev/null | grep '^cct-' || true)
if [ -n "$left" ]; then
  echo "FAIL: leftovers in /dev/shm:"; echo "$left"; exit 1
fi
echo "PASS: no cct-* entries in /dev/shm"
