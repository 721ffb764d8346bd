#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck on every level-5 (cp.async) kernel at small ragged sizes.
# Usage on a GPU machine: bash benchmarks/sanitize_level5.sh [OUT_DIR]   (one log per tool, summary on stdout)
# --report-api-errors no: memcheck otherwise reports the driver's cuGetProcAddress probing at start-up.
set -u
OUT=${1:-.}
shift || true
HERE=$(cd "$(dirname "$0")" && pwd)
status=0
for tool in memcheck racecheck synccheck; do
  extra=""
  [ "$tool" = memcheck ] && extra="--report-api-errors no"
  compute-sanitizer --tool $tool $extra --error-exitcode 9 python3 "$HERE/sanitize_level5.py" "$@" \
      > "$OUT/sanitize_$tool.log" 2>&1
  rc=$?
  echo "$tool rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|hazard' "$OUT/sanitize_$tool.log" | tail -2 | tr '\n' ' ')"
  [ $rc -ne 0 ] && status=1
done
exit $status
