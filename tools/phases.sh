# Where a script's time goes, sourced by tools/tune.sh, tools/test.sh,
# tools/sanitize.sh, tools/fuzz.sh and .ci/run.
#
#   phase NAME COMMAND...   runs COMMAND, records the script's name, NAME,
#                           its seconds and its result; returns COMMAND's
#                           status
#
# At exit (failed or not) a script that sourced this prints one line per
# phase it ran, those of the scripts it called included (they share
# $CCT_PHASES_FILE), and its own time from start to end, so that every log
# ends with its times and a slower step shows in the next one.
if [ -z "${CCT_PHASES_FILE:-}" ]; then
  CCT_PHASES_FILE=$(mktemp -t cct-phases.XXXXXX)
  export CCT_PHASES_FILE
  cct_phases_own_file=1
fi
cct_phases_first=$(($(wc -l <"$CCT_PHASES_FILE") + 1))
cct_phases_script=$(basename "$0")
cct_phases_start=$(date +%s)

# COMMAND may be a function: it runs where set -e does not stop it (as
# the left of ||), so a function chains its steps with && or returns.
phase() {
  local name=$1 start status=0
  shift
  start=$(date +%s)
  "$@" || status=$?
  printf '%s\t%s\t%d\t%s\n' "$cct_phases_script" "$name" $(($(date +%s) - start)) \
    "$([ "$status" -eq 0 ] && echo ok || echo "FAILED (status $status)")" >>"$CCT_PHASES_FILE"
  return "$status"
}

cct_phases_summary() {
  local status=$? script name seconds result
  echo "$cct_phases_script: time per phase"
  while IFS=$'\t' read -r script name seconds result; do
    printf '  %-24s %5d s  %s\n' "$script $name" "$seconds" "$result"
  done < <(tail -n +"$cct_phases_first" "$CCT_PHASES_FILE")
  printf '  %-24s %5d s  (exit status %d)\n' "$cct_phases_script in all" \
    $(($(date +%s) - cct_phases_start)) "$status"
  [ -z "${cct_phases_own_file:-}" ] || rm -f "$CCT_PHASES_FILE"
  return "$status"
}
trap cct_phases_summary EXIT
