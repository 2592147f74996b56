#!/usr/bin/env bash
# Runs the libFuzzer targets built by Fuzz/build.sh, each for a bounded time (docs/hardening.md).
#
#   Fuzz/run.sh [SECONDS] [TARGET...]    default: 60 s each; targets csv motioncollector iio pipeline compressed cwa gt3x
#
# Each target starts from its seed corpus Fuzz/corpus/TARGET/ (read only) and keeps what it
# finds in .build/fuzz/work/TARGET/; crashes go to .build/fuzz/artifacts/ (add each, once fixed,
# to the seed corpus). Exits non-zero when a target crashes.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="${FUZZ_BUILD:-$ROOT/.build/fuzz}"
SECONDS_EACH="${1:-60}"; shift || true
TARGETS=("$@"); [ ${#TARGETS[@]} -gt 0 ] || TARGETS=(csv motioncollector iio pipeline compressed cwa gt3x)
mkdir -p "$B/artifacts"
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$B/work/$t"
  log="$B/fuzz-$t.log"
  # -rss_limit_mb: an input that makes a reader allocate gigabytes is a finding too (docs/scale.md).
  if "$B/fuzz-$t" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
       -artifact_prefix="$B/artifacts/$t-" -print_final_stats=1 \
       "$B/work/$t" "$ROOT/Fuzz/corpus/$t" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz-$t: clean, $runs executions in ${SECONDS_EACH}s"
  else
    status=1
    echo "fuzz-$t: FAILED (see $log)"; grep -m3 -E 'ERROR|Fatal error|panic|deadly' "$log" || true
  fi
done
exit $status
