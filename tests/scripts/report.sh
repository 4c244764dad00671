#!/usr/bin/env bash
# ccautotune --report writes a page of plots beside the profile of a small
# quick run (2 ranks, bcast and allreduce up to 4 KiB), one per shape.
# ccprofile report on its results with a ccbench output (the one under
# docs/benchmarks): the page is written beside the results, names the
# machine, and fetches nothing; in headless chromium every plot is there
# (one per shape of the results file and per collective of the ccbench
# table, counted here from the files) and every series is drawn. A
# malformed ccbench output is refused with status 2 and file:line.
# Skipped (status 77) where chromium is not installed: tools/test.sh
# installs it.
# usage: report.sh <ccautotune> <ccprofile> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
ccprofile=$2
bench=$3/docs/benchmarks/profile-mpi-np2.txt

"$tuner" --np 2 --collectives bcast,allreduce --max-bytes 4k --quick --budget 0.02 --report \
  --out "$dir" >"$dir/tune.log" 2>&1 || fail "tuning exited $?" "$dir/tune.log"
csv=$(ls "$dir"/*.csv)
fp=$(basename "$csv" .csv)
page=$dir/$fp.html
shapes=$(awk -F, 'NR > 1 {print $1, $2, $3, $4}' "$csv" | sort -u | wc -l)
# ccautotune --report wrote the page of its results, a plot per shape.
grep -qx "report: $page" "$dir/tune.log" || fail "ccautotune --report: no 'report: $page'" \
  "$dir/tune.log"
[ "$(grep -o 'class="plot"' "$page" | wc -l)" -eq "$shapes" ] ||
  fail "ccautotune --report: not one plot for each of $shapes shapes" "$page"
"$ccprofile" report "$csv" --bench "$bench" >"$dir/report.log" 2>&1 ||
  fail "ccprofile report exited $?" "$dir/report.log"
grep -qx "report: $page" "$dir/report.log" || fail "no 'report: $page'" "$dir/report.log"
grep -q "<td>$fp (" "$page" || fail "the page does not name the machine $fp" "$page"
# Self-contained: no script, style sheet, frame or image of its own, no URL.
if grep -Eiq '<(script|link|iframe|img)|url\(|@import|(src|href) *= *["'"'"']?(https?:|file:|//)' \
  "$page"; then
  fail "the page would fetch something or run a script" "$page"
fi

# The plots expected: the shapes of the results, the collectives of ccbench's table.
benched=$(awk '$1 == "collective" {table = 1; next} table && NF {print $1}' "$bench" | sort -u | wc -l)
plots=$((shapes + benched))
[ "$shapes" -ge 2 ] && [ "$benched" -ge 2 ] || fail "$shapes shapes, $benched collectives" "$csv"

printf 'collective bytes MPI cct cct/MPI\nbcast 1 0.5 0.5 fast\n' >"$dir/bad.txt"
status=0
"$ccprofile" report "$csv" --bench "$dir/bad.txt" -o "$dir/bad.html" >"$dir/bad.log" 2>&1 ||
  status=$?
[ "$status" -eq 2 ] && grep -q "$dir/bad.txt:2: ratio 'fast' is not a number" "$dir/bad.log" ||
  fail "a malformed ccbench output: status $status" "$dir/bad.log"

if ! command -v chromium >/dev/null; then
  echo "SKIP: chromium is not installed, so the page was not rendered (tools/test.sh installs it)"
  exit 77
fi
# The check runs in the browser on a copy of the page, after the plots are
# laid out, and leaves its verdict in the DOM that chromium dumps.
cp "$page" "$dir/check.html"
cat >>"$dir/check.html" <<'HTML'
<script>
const plots = [...document.querySelectorAll("svg.plot")];
const drawn = plots.filter(svg => {
  const series = [...svg.querySelectorAll("g.series")];
  return series.length > 0 && series.every(g => {
    const box = g.getBBox();
    return box.width > 0 && box.height > 0;
  });
});
const verdict = document.createElement("pre");
verdict.textContent = `REPORT-CHECK plots=${plots.length} drawn=${drawn.length}`;
document.body.appendChild(verdict);
</script>
HTML
timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$dir/chromium" \
  --dump-dom "file://$dir/check.html" >"$dir/dom.html" 2>"$dir/chromium.log" ||
  fail "chromium exited $?" "$dir/chromium.log"
grep -q "REPORT-CHECK plots=$plots drawn=$plots" "$dir/dom.html" ||
  fail "want $plots plots drawn: $(grep -o 'REPORT-CHECK.*' "$dir/dom.html" || echo 'no verdict')" \
    "$dir/chromium.log"
echo "PASS: $plots plots ($shapes shapes, $benched ccbench collectives) drawn in chromium"
