#!/usr/bin/env python3
"""Which tests tools/sanitize.sh runs under ASan+UBSan, and why.

The whole suite under the sanitizers is CI's longest step (758 s at -O1 on
2 cores, docs/reliability.md) and grows with every test, while .ci/run must
stay within 45 minutes on an idle machine. So every run takes the tests
where the sanitizers find the most (ALWAYS), and one of ROTATION_GROUPS of the
rest, chosen by the commit: each of those runs under the sanitizers every
ROTATION_GROUPS commits, and a commit always runs the same group, so a
finding can be reproduced. LEFT_OUT never runs under them.

usage: sanitizer_share.py <ASan build dir> [group]
  group: a number below ROTATION_GROUPS, or "all" (every group); default:
  the commit's (CCT_SANITIZER_GROUP gives it too).
Prints ctest's -I argument (the chosen test numbers) on stdout, and what it
chose and why on stderr.
"""
import json
import os
import subprocess
import sys
import zlib

# Always, and why: each entry is a test's name, or "<program>:" for every
# test case of a Catch2 program.
#
# The unit cases of cct_tests rotate with the rest: under the sanitizers
# their 328 cases took 1337 s of the share's 2058 s (ctest's sum over both
# lanes, 2026-11-28), which kept .ci/run past its 45 minutes; each still
# runs under them every third commit.
ALWAYS = {
    "cct_rio_tests:": "the RapidIO simulator's engine (packets, routing, fibers), in a second",
    "mpi_interposer": "the interposer reads and writes the program's own buffers",
    "mpi_collectives": "the interposer on the other eight collectives (counts, displacements, "
    "in place)",
    "mpi_mixed_types": "datatypes: derived, packed, different on each rank",
    "mpi_differential": "random calls of every collective compared whole with the library's: "
    "every path of the interposer's buffer handling",
    "mpi_device": "the interposer's mirrors of device buffers: the spans it copies, in and out "
    "(ASan found one reaching before a v-collective's first block)",
    "failures_stay_small": "bad CCT_FORCE, CCT_LOG and profiles: paths only faults take",
    "profile_end_to_end": "a tuned profile read and applied, and a malformed one refused",
    "stale_segments": "segments of dead processes removed",
    "mpi_timeout": "a stopped rank under CCT_TIMEOUT: the runtime's abort path",
    "tuner_fault_isolation": "a candidate that crashes or hangs a rank during tuning",
    "ccinfo_cuda_devices": "this build hides the CUDA toolkit (tools/sanitize.sh): ccinfo says "
    "so, as on a machine without one",
}

# Never under the sanitizers, and why.
LEFT_OUT = {
    "cct_tests_long":
    "the long tier's stress runs (4 ranks through 100000 barriers on 2 cores) take minutes "
    "under ASan, for a check of the barrier's logic that the normal build makes",
    "cost_model_np64":
    "the long tier's simulator measurement at 64 DSPs (131 s in the normal build) checks a "
    "figure of the cost model, not memory: the small case (cost_model_simulator) runs the same "
    "code under the sanitizers",
    "mpi_heap_untouched":
    "it reads glibc's malloc state (mallinfo2), which ASan's allocator replaces: under it no "
    "allocation is glibc's to count",
    "mpi_transport":
    "every p2p algorithm over the mpi transport, on 3 and 4 ranks, ran past its 300 s limit "
    "under ASan; the interposer stays covered by the other MPI tests",
}

# The rest is split into this many groups (by a hash of the test's name, so
# that adding a test moves no other): each runs every third commit.
ROTATION_GROUPS = 3


def tests_of(build):
    listing = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, check=True,
                             capture_output=True, text=True).stdout
    for number, test in enumerate(json.loads(listing)["tests"], start=1):
        program = os.path.basename(test.get("command", [""])[0])
        yield number, test["name"], program


def commit_group():
    named = os.environ.get("CCT_SANITIZER_GROUP", "")
    if named:
        return named, "CCT_SANITIZER_GROUP"
    source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    head = subprocess.run(["git", "-C", source, "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    if not head:
        return "0", "no git commit here"
    return str(int(head[:12], 16) % ROTATION_GROUPS), f"commit {head[:12]}"


def group_of(name):
    return zlib.crc32(name.encode()) % ROTATION_GROUPS


def say(text):
    print("sanitizer share: " + text, file=sys.stderr)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    group, why = (sys.argv[2], "the command line") if len(sys.argv) == 3 else commit_group()
    if group != "all" and group not in map(str, range(ROTATION_GROUPS)):
        sys.exit(f"sanitizer_share: group '{group}': expected 0 to {ROTATION_GROUPS - 1} or all")
    chosen, always, rotating, left_out = [], {}, [], []
    for number, name, program in tests_of(sys.argv[1]):
        key = name if name in ALWAYS else program + ":"
        if name in LEFT_OUT:
            left_out.append(name)
        elif key in ALWAYS:
            always[key] = always.get(key, 0) + 1
            chosen.append(number)
        elif group == "all" or group_of(name) == int(group):
            rotating.append(name)
            chosen.append(number)
    for key, count in always.items():
        say(f"always {key}{f' ({count} test cases)' if key.endswith(':') else ''}: {ALWAYS[key]}")
    # A name in the tables that no test has (renamed, removed) would
    # silently move that test to the rotation, or run what was left out.
    unknown = (set(ALWAYS) - set(always)) | (set(LEFT_OUT) - set(left_out))
    if unknown:
        sys.exit(f"sanitizer_share: no test named {', '.join(sorted(unknown))}: mend the tables")
    say(f"rotating: group {group} of {ROTATION_GROUPS} ({why}): {', '.join(rotating) or 'none'}")
    for name in left_out:
        say(f"left out {name}: {LEFT_OUT[name]}")
    print("0,0,0," + ",".join(map(str, chosen)))


if __name__ == "__main__":
    main()
