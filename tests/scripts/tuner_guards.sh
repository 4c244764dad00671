#!/usr/bin/env bash
# ccautotune guards its output and its arguments:
# - one run per --out directory: a second run while the first measures is
#   refused with status 2, naming the first one's pid; once the first has
#   ended, the same command runs (the lock leaves nothing behind);
# - a results file holding only its header (a run that measured nothing)
#   does not block the next run;
# - --exclude leaves algorithms out of the measurements and the profile;
# - numbers outside what a run can use are refused with status 2 and the
#   range: --buffers 0 and 100000, buffers beyond the memory available,
#   --budget -1 and nan, --time-budget -3,
#   --timeout 0, --min-bytes above --max-bytes, and an --np beyond the
#   open-file limit (which names `ulimit -n`);
# - a full disk (a 4 KiB tmpfs in a private mount namespace) stops the run
#   with the system's reason, and the rows written before stay readable
#   (skipped, status 77, where a mount namespace cannot be made).
# usage: tuner_guards.sh <ccautotune>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
# shellcheck disable=SC2016 # expanded at exit
at_exit 'kill "$first" 2>/dev/null; wait 2>/dev/null'
quick() { "$tuner" --np 2 --collectives barrier --quick --budget 0.02 "$@"; }

# One run per directory.
"$tuner" --np 2 --collectives alltoall --budget 0.5 --out "$dir/busy" >"$dir/first.log" 2>&1 &
first=$!
for _ in $(seq 100); do
  [ -n "$(ls "$dir/busy"/*.csv 2>/dev/null)" ] && break
  sleep 0.1
done
status=0
quick --resume --out "$dir/busy" >"$dir/second.log" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "a second run into a busy directory: status $status" "$dir/second.log"
grep -q "^ccautotune: --out $dir/busy is being tuned by pid $first (.*ccautotune" "$dir/second.log" ||
  fail "the refusal does not name pid $first" "$dir/second.log"
kill "$first" && wait "$first" 2>/dev/null
# A launcher killed before its ranks unlinked their shared memory leaves it
# behind until a later start finds it a minute old (stale_segments); the
# test removes what it caused now.
rm -f /dev/shm/cct-"$first"-*
# Its ranks (forks sharing the lock) die with it, within moments.
for _ in $(seq 50); do
  status=0
  quick --resume --out "$dir/busy" >"$dir/third.log" 2>&1 || status=$?
  [ "$status" -eq 2 ] && grep -q "is being tuned by" "$dir/third.log" || break
  sleep 0.1
done
[ "$status" -eq 0 ] || fail "after the first run ended, the directory is still refused" "$dir/third.log"
left=$(find "$dir/busy" -type f ! -name '*.csv' ! -name '*.yaml' ! -name '*.jobs' ! -name '*.shortlists')
[ -z "$left" ] || fail "files left beside the results: $left"

# A results file with its header alone blocks nothing.
mkdir -p "$dir/empty"
fp=$(basename "$(ls "$dir/busy"/*.csv)" .csv)
head -1 "$dir/busy/$fp.csv" >"$dir/empty/$fp.csv"
quick --out "$dir/empty" >"$dir/empty.log" 2>&1 ||
  fail "a header-only results file blocked the run" "$dir/empty.log"

# --exclude leaves algorithms out of the measurements, and out of the
# profile even where earlier runs measured them; a name no plugin has is
# refused.
"$tuner" --np 2 --collectives bcast --quick --budget 0.02 --exclude knomial,binomial \
  --out "$dir/ex" >"$dir/ex.log" 2>&1 || fail "--exclude: exit status $?" "$dir/ex.log"
! grep -Eq '^bcast,shm,[0-9]+,[0-9]+,[0-9]+,(knomial|binomial),' "$dir/ex"/*.csv ||
  fail "--exclude knomial,binomial: measured anyway" "$dir/ex/$fp.csv"
"$tuner" --np 2 --collectives bcast --quick --budget 0.02 --out "$dir/ex2" >"$dir/ex2.log" 2>&1 ||
  fail "a quick bcast run: exit status $?" "$dir/ex2.log"
winners=$(sed -n 's/^ *algorithm: //p' "$dir/ex2"/*.yaml | sort -u)
[ -n "$winners" ] || fail "no rules in the profile" "$dir/ex2.log"
"$tuner" --np 2 --collectives bcast --quick --budget 0.02 --resume --out "$dir/ex2" \
  --exclude "$(echo $winners | tr ' ' ',')" >"$dir/ex3.log" 2>&1 ||
  fail "--resume --exclude: exit status $?" "$dir/ex3.log"
for w in $winners; do
  ! grep -q "^ *algorithm: $w\$" "$dir/ex2"/*.yaml || fail "--exclude $w: still in the profile" \
    "$dir/ex3.log"
done

# <why> <text the message must hold> <arguments...>
refused() {
  local why=$1 want=$2 status=0
  shift 2
  "$tuner" --out "$dir/never" "$@" >"$dir/refused.log" 2>&1 || status=$?
  [ "$status" -eq 2 ] || fail "$why ($*): status $status, want 2" "$dir/refused.log"
  grep -qF -- "$want" "$dir/refused.log" || fail "$why ($*): no '$want'" "$dir/refused.log"
}
refused "no buffer set" "--buffers: 0 is outside 1..64 buffer sets" --buffers 0
refused "gigabytes per rank" "--buffers: 100000 is outside 1..64" --buffers 100000
refused "more buffers than memory" \
  "np=2: each rank's buffers take 64G (32 set(s) of 2G for calls up to 512M within --max-rank-bytes 4G), 128G for the 2 rank(s) on this machine, more than the" \
  --np 2 --collectives alltoall --max-bytes 512M --max-rank-bytes 4G --buffers 32
grep -q "GiB it has available: lower --buffers, --max-bytes or --max-rank-bytes$" "$dir/refused.log" ||
  fail "the refusal of buffers beyond memory does not say what to lower" "$dir/refused.log"
refused "a negative budget" "--budget: -1 is outside" --budget -1
refused "no budget at all" "--budget: nan is outside" --budget nan
refused "a negative time budget" "--time-budget: -3 is outside 0.." --time-budget -3
refused "no time to run" "--timeout: 0 is outside 1.." --timeout 0
refused "sizes the wrong way round" "--min-bytes 4M is above --max-bytes 1k" \
  --min-bytes 4M --max-bytes 1k
refused "an algorithm no plugin has" "--exclude: no algorithm plugin 'nosuch'" --exclude nosuch
(
  ulimit -n 1024
  refused "more ranks than open files" "needs about 200064 open files, and the limit here is 1024 (ulimit -n)" \
    --np 100000
) || exit 1
[ ! -e "$dir/never" ] || fail "a refused run created its --out directory"

# A full disk names the reason and keeps what was written.
if ! unshare --mount true 2>/dev/null; then
  echo "SKIP: cannot make a mount namespace here (needs root); the full-disk case was not run"
  exit 77
fi
status=0
mkdir -p "$dir/full"
unshare --mount bash -c '
  mount -t tmpfs -o size=4k tmpfs "$1" && "$2" --np 2 --collectives bcast,alltoall --quick --budget 0.02 \
    --out "$1/out"; status=$?; cp -r "$1/out" "$1.copy"; exit $status' _ "$dir/full" "$tuner" \
  >"$dir/full.log" 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "a run on a full disk exited 0" "$dir/full.log"
grep -q "cannot write results file .*: No space left on device" "$dir/full.log" ||
  fail "the full disk is not named" "$dir/full.log"
rows=$(python3 - "$dir/full.copy"/*.csv <<'PY'
import csv, sys
text = open(sys.argv[1]).read()
complete = text[: text.rfind("\n") + 1]  # a cut-off last row is the reader's to drop
print(len(list(csv.reader(complete.splitlines()))) - 1)
PY
) || fail "the results written before the disk filled do not parse"
[ "$rows" -ge 1 ] || fail "no row survived the full disk" "$dir/full.log"
echo "PASS: one run per directory (the second named pid $first); header-only results block" \
  "nothing; --exclude; 9 bad arguments refused; a full disk named, $rows rows kept"
