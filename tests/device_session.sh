#!/usr/bin/env bash
# Everything a GPU session needs in one command (see docs/measuring.md): the
# full GPU suite (make test-gpu), the benchmark, the profile and the SASS
# profile (tests/sass_profile.sh), all into docs/results/ (merged with the
# rows of chapters not run), and the logs and CSVs copied to $OUT (default
# tests/build/out). Prints the short benchmark table last.
#
#   OUT=/some/dir TUTORIAL_COMMIT=abc123 bash tests/device_session.sh
#   CHAPTERS=02_double_buffer ... bash tests/device_session.sh   one chapter
#   SKIP_TESTS=1 ... bash tests/device_session.sh                measure only
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-tests/build/out}
mkdir -p "$OUT" tests/build/logs

nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit \
    --format=csv >"$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

test_rc=0
if [ -z "${SKIP_TESTS:-}" ]; then
    echo "== make test-gpu"
    bash tests/run.sh --gpu >"$OUT/test-gpu.log" 2>&1
    test_rc=$?
    tail -n 3 "$OUT/test-gpu.log"
fi

echo "== benchmark"
# Into docs/results, merging with the committed rows of chapters not run now.
bash tests/bench.sh >"$OUT/bench.log" 2>&1
bench_rc=$?

echo "== profile"
bash tests/profile.sh >tests/build/logs/profile.log 2>&1 || echo "profile failed (see tests/build/logs/profile.log)"
bash tests/sass_profile.sh >tests/build/logs/sass_profile.log 2>&1 || echo "SASS profile failed (see tests/build/logs/sass_profile.log)"
tar czf "$OUT/results.tgz" docs/results tests/build/logs 2>/dev/null
echo
echo "GPU tests exit $test_rc, benchmark exit $bench_rc; results in $OUT"
tail -n 30 "$OUT/bench.log"
[ "$test_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
