#!/usr/bin/env bash
# ccprofile on small profiles written here: validate (a clean file, a rule
# naming an algorithm this build lacks, a file broken as a whole), show,
# explain (the profile's rule, CCT_FORCE's, a rule that cannot run on 3
# ranks, a rule's fallbacks, a reduction's rules for doubles, a gather's
# rules for roots other than 0), diff, merge (a one-node and a two-node profile of one machine;
# two machines refused), and its command line (--version, no subcommand).
# usage: ccprofile.sh <ccprofile>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
ccprofile=$1
profile() {  # <algorithm of allgather> <algorithm of bcast from 4k>
  cat <<YAML
schema: 1
tool_version: 0.1.0
date: 2026-11-24T00:00:00Z
machine:
  fingerprint: 0123456789abcdef
  summary: pack:1 core:2 pu:2
  nodes: 1
  ranks_per_node: 2
  packages: 1
  numa_nodes: 1
  cores: 2
  pus: 2
  caches: L2 1M x2
tuning:
  max_bytes: 4M
rules:
  bcast:
    shm:
      - np: [1, max]
        measured_np: 2
        sizes:
          - range: [0, 4k]
            algorithm: binomial
            median_s: 1.5e-06
          - range: [4k, max]
            algorithm: $2
            median_s: 3e-06
  allgather:
    shm:
      - np: [1, max]
        sizes:
          - range: [0, max]
            algorithm: $1
YAML
}
profile recursive_doubling "knomial" >"$dir/a.yaml"
profile recursive_doubling "chain" >"$dir/b.yaml"
profile recursive_doubling "gone" >"$dir/bad.yaml"
printf 'schema: 1\nrules: [\n' >"$dir/broken.yaml"

"$ccprofile" --version | grep -q '^ccprofile [0-9]' || fail "--version"
"$ccprofile" >"$dir/out" 2>&1
[ $? -eq 2 ] && grep -q "run 'ccprofile --help' for usage" "$dir/out" || fail "no subcommand" "$dir/out"

"$ccprofile" validate "$dir/a.yaml" >"$dir/out" 2>&1 || fail "validate of a clean profile" "$dir/out"
grep -q "^$dir/a.yaml: valid$" "$dir/out" || fail "validate said nothing" "$dir/out"
"$ccprofile" validate "$dir/a.yaml" "$dir/bad.yaml" "$dir/broken.yaml" >"$dir/out" 2>&1
[ $? -eq 1 ] || fail "validate of bad profiles did not exit 1" "$dir/out"
grep -q "^$dir/bad.yaml:26: rules.bcast.shm\[0\].sizes\[1\].algorithm: unknown bcast algorithm 'gone'" \
  "$dir/out" || fail "no file:line for the bad rule" "$dir/out"
grep -q "^$dir/broken.yaml:[0-9]*: " "$dir/out" || fail "no file:line for the broken file" "$dir/out"

"$ccprofile" show "$dir/a.yaml" >"$dir/out" 2>&1 || fail "show" "$dir/out"
grep -Eq '^bcast +shm +1-max +4k-max +knomial' "$dir/out" || fail "show lists no rule" "$dir/out"

"$ccprofile" explain bcast 64k --np 2 --profile "$dir/a.yaml" >"$dir/out" 2>&1 || fail "explain" "$dir/out"
grep -q "^bcast of 64k on shm, 2 ranks on 1 node: profile rule \[4k, max) -> knomial(radix=4), measured 3.00 us" \
  "$dir/out" || fail "explain of the profile's rule" "$dir/out"
CCT_FORCE="bcast:0-max:chain" "$ccprofile" explain bcast 64k --profile "$dir/a.yaml" >"$dir/out" 2>&1
grep -q ": CCT_FORCE rule \[0, max) -> chain(segment=32k)$" "$dir/out" || fail "explain of CCT_FORCE" "$dir/out"
"$ccprofile" explain allgather 1k --np 3 --profile "$dir/a.yaml" >"$dir/out" 2>&1
grep -q "^but recursive_doubling needs a power-of-two rank count, not 3: such calls take the MPI library.s own call in an MPI program, else the built-in default ring$" \
  "$dir/out" || fail "explain of a rule that cannot run" "$dir/out"
grep -q "^note: profile rules measured at 2 ranks used for 3 ranks on shm" "$dir/out" ||
  fail "explain does not say the rules are stretched" "$dir/out"
# A rule with fallbacks (schema 2): each candidate that cannot run on 3
# ranks outside MPI hands over to the next.
profile "$(printf 'recursive_doubling\n            fallbacks: [{algorithm: mpi}, {algorithm: bruck}]')" \
  knomial | sed 's/^schema: 1$/schema: 2/' >"$dir/c.yaml"
"$ccprofile" explain allgather 1k --np 3 --profile "$dir/c.yaml" >"$dir/out" 2>&1 ||
  fail "explain of a rule with fallbacks" "$dir/out"
for line in "where it cannot run a call, the rule's fallbacks in order: mpi bruck" \
  "but recursive_doubling needs a power-of-two rank count, not 3: such calls take the rule's next candidate mpi" \
  "but mpi runs only inside an MPI program (the MPI library's own call): such calls take the rule's next candidate bruck"; do
  grep -qxF "$line" "$dir/out" || fail "explain does not say: $line" "$dir/out"
done
"$ccprofile" explain bcst 1k --profile "$dir/a.yaml" >"$dir/out" 2>&1
[ $? -eq 2 ] && grep -q "unknown collective 'bcst'" "$dir/out" || fail "bad collective" "$dir/out"

# Rules of a reduction's element types: a typed bucket for double beside
# the untyped one; explain, show and diff name the types.
typed() {  # <allreduce algorithm for doubles>
  profile recursive_doubling knomial
  cat <<YAML
  allreduce:
    shm:
      - np: [1, max]
        sizes:
          - range: [0, max]
            algorithm: ring
      - np: [1, max]
        datatypes: [double]
        sizes:
          - range: [0, max]
            algorithm: $1
YAML
}
typed recursive_doubling >"$dir/typed.yaml"
typed rabenseifner >"$dir/typed2.yaml"
"$ccprofile" explain allreduce 64 --datatype double --profile "$dir/typed.yaml" >"$dir/out" 2>&1 &&
  grep -q "^allreduce of 64 double on shm, 2 ranks on 1 node: profile rule \[0, max) -> recursive_doubling$" \
    "$dir/out" || fail "explain of a typed rule" "$dir/out"
"$ccprofile" explain allreduce 64 --datatype int32 --profile "$dir/typed.yaml" >"$dir/out" 2>&1 &&
  grep -q ": profile rule \[0, max) -> ring$" "$dir/out" || fail "explain of an untyped rule" "$dir/out"
"$ccprofile" explain allreduce 64 --datatype half --profile "$dir/typed.yaml" >"$dir/out" 2>&1
[ $? -eq 2 ] && grep -q "unknown element type 'half'" "$dir/out" || fail "bad element type" "$dir/out"
"$ccprofile" show "$dir/typed.yaml" >"$dir/out" 2>&1 &&
  grep -Eq '^allreduce \(double\) +shm +1-max +0-max +recursive_doubling' "$dir/out" ||
  fail "show lists no typed rule" "$dir/out"
"$ccprofile" diff "$dir/typed.yaml" "$dir/typed2.yaml" >"$dir/out" 2>&1
[ $? -eq 1 ] && grep -q "^allreduce shm np \[1, max\] for double \[0, max): recursive_doubling -> rabenseifner" \
  "$dir/out" || fail "diff of typed rules" "$dir/out"

# Rules of a rooted collective's roots other than 0: a bucket of them
# beside the one of every call; explain (--root), show and diff name them.
rooted() {  # <gather algorithm for roots other than 0>
  profile recursive_doubling knomial
  cat <<YAML
  gather:
    shm:
      - np: [1, max]
        sizes:
          - range: [0, max]
            algorithm: binomial
      - np: [1, max]
        roots: nonzero
        sizes:
          - range: [0, max]
            algorithm: $1
YAML
}
rooted linear >"$dir/rooted.yaml"
rooted linear_throttled >"$dir/rooted2.yaml"
"$ccprofile" explain gather 64 --root 1 --profile "$dir/rooted.yaml" >"$dir/out" 2>&1 &&
  grep -q "^gather of 64 at root 1 on shm, 2 ranks on 1 node: profile rule \[0, max) -> linear$" \
    "$dir/out" || fail "explain of a rule of roots other than 0" "$dir/out"
"$ccprofile" explain gather 64 --profile "$dir/rooted.yaml" >"$dir/out" 2>&1 &&
  grep -q "^gather of 64 on shm, 2 ranks on 1 node: profile rule \[0, max) -> binomial$" "$dir/out" ||
  fail "explain of a rule at root 0" "$dir/out"
"$ccprofile" explain gather 64 --root 2 --profile "$dir/rooted.yaml" >"$dir/out" 2>&1
[ $? -eq 2 ] && grep -q -- "--root 2 is not a rank of 2 (0..1)" "$dir/out" || fail "a root beyond np" "$dir/out"
"$ccprofile" show "$dir/rooted.yaml" >"$dir/out" 2>&1 &&
  grep -Eq '^gather \(roots other than 0\) +shm +1-max +0-max +linear' "$dir/out" ||
  fail "show lists no rule of roots other than 0" "$dir/out"
"$ccprofile" diff "$dir/rooted.yaml" "$dir/rooted2.yaml" >"$dir/out" 2>&1
[ $? -eq 1 ] && grep -q "^gather shm np \[1, max\] for roots other than 0 \[0, max): linear -> linear_throttled" \
  "$dir/out" || fail "diff of rules of roots other than 0" "$dir/out"

"$ccprofile" diff "$dir/a.yaml" "$dir/a.yaml" >"$dir/out" 2>&1 || fail "diff of a profile with itself" "$dir/out"
"$ccprofile" diff "$dir/a.yaml" "$dir/b.yaml" >"$dir/out" 2>&1
[ $? -eq 1 ] || fail "diff of different profiles did not exit 1" "$dir/out"
grep -q "^bcast shm np \[1, max\] \[4k, max): knomial(radix=4) -> chain(segment=32k) (measured 3.00 -> 3.00 us); not told: the second has no figure of the first's pick$" "$dir/out" && grep -q "^1 differences, 0 of them beyond the noise by the second's figures$" "$dir/out" ||
  fail "diff does not name the changed range" "$dir/out"
# Whether a change matters, by the second's figures of the first's pick
# (a fallback of its rule) beyond the noise it measured there.
with_fallback() {  # <knomial's figure in the second profile>
  sed -e 's/^schema: 1$/schema: 3/' -e "s/^            algorithm: chain$/            algorithm: chain\n            noise: 0.05\n            fallbacks:\n              - {algorithm: knomial, median_s: $1}/" \
    "$dir/b.yaml"
}
with_fallback 4.5e-06 >"$dir/c.yaml"
"$ccprofile" diff "$dir/a.yaml" "$dir/c.yaml" >"$dir/out" 2>&1
grep -q "(measured 3.00 -> 3.00 us); beyond the noise: the first's pick 1.50x the second's by the second's figures (noise 5%)$" \
  "$dir/out" && grep -q "^1 differences, 1 of them beyond the noise" "$dir/out" ||
  fail "diff of a change beyond the noise" "$dir/out"
with_fallback 3.06e-06 >"$dir/c.yaml"
"$ccprofile" diff "$dir/a.yaml" "$dir/c.yaml" >"$dir/out" 2>&1
grep -q "(measured 3.00 -> 3.00 us); within the noise: the first's pick 1.02x the second's" "$dir/out" ||
  fail "diff of a change within the noise" "$dir/out"
# A cluster's profile of the same machine: its 2-node buckets join the
# one-node ones; another machine's profile is refused.
sed -e 's/      - np: \[1, max\]/      - np: [2, max]\n        nodes: 2/' -e 's/measured_np: 2/measured_np: 4/' \
  "$dir/b.yaml" >"$dir/cluster.yaml"
"$ccprofile" merge "$dir/a.yaml" "$dir/cluster.yaml" --out "$dir/merged.yaml" >"$dir/out" 2>&1 ||
  fail "merge" "$dir/out"
"$ccprofile" validate "$dir/merged.yaml" >"$dir/out" 2>&1 || fail "the merged profile" "$dir/out"
"$ccprofile" show "$dir/merged.yaml" >"$dir/out" 2>&1 || fail "show of the merged profile" "$dir/out"
grep -Eq '^bcast +shm +1-max +4k-max +knomial' "$dir/out" &&
  grep -Eq '^bcast +shm +2-max \(2 nodes\) +4k-max +chain' "$dir/out" ||
  fail "the merged profile lacks a shape" "$dir/out"
sed 's/fingerprint: 0123456789abcdef/fingerprint: fedcba9876543210/' "$dir/b.yaml" >"$dir/other.yaml"
"$ccprofile" merge "$dir/a.yaml" "$dir/other.yaml" --out "$dir/no.yaml" >"$dir/out" 2>&1
[ $? -eq 2 ] && grep -q "are of different machines" "$dir/out" && [ ! -e "$dir/no.yaml" ] ||
  fail "a merge across machines was not refused" "$dir/out"
echo "PASS: ccprofile validates, shows, explains, diffs and merges"
