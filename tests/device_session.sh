#!/usr/bin/env bash
# Everything a GPU session needs in one command (see docs/measuring.md):
# build all chapters and knob variants in parallel, run the GPU tests, run
# the benchmark and the profile (into docs/results/, merged with the rows of
# chapters not run), and copy the logs and CSVs to $OUT (default
# tests/build/out). Prints the short benchmark table last.
#
#   OUT=/some/dir TUTORIAL_COMMIT=abc123 bash tests/device_session.sh
#   CHAPTERS=02_double_buffer ... bash tests/device_session.sh   one chapter
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-tests/build/out}
mkdir -p "$OUT" tests/build/logs

nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit \
    --format=csv >tests/build/logs/gpu.txt 2>&1
cat tests/build/logs/gpu.txt

echo "== parallel build"
pids=()
for ch in ${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d /)}; do
    make --no-print-directory -C "$ch" >"tests/build/logs/build-$ch.log" 2>&1 &
    pids+=($!)
    for v in $(make -s --no-print-directory -C "$ch" print-BENCH_VARIANTS); do
        b="build/variant-$(echo "$v" | tr ',=' '_-')"
        make --no-print-directory -C "$ch" BUILD="$b" BIN="$b/run" $(echo "$v" | tr ',' ' ') \
            >"tests/build/logs/build-$ch-$(echo "$v" | tr ',=' '_-').log" 2>&1 &
        pids+=($!)
    done
done
make --no-print-directory -C tests/gpu >tests/build/logs/build-mutants.log 2>&1 &
pids+=($!)
for p in "${pids[@]}"; do wait "$p" || echo "a build failed (see tests/build/logs/build-*.log)"; done

echo "== GPU tests"
bash tests/run.sh --gpu 2>&1 | tee "$OUT/test-gpu.log"
test_rc=${PIPESTATUS[0]}

echo "== benchmark"
# Into docs/results, merging with the committed rows of chapters not run now.
bash tests/bench.sh >"$OUT/bench.log" 2>&1
bench_rc=$?

echo "== profile"
bash tests/profile.sh >tests/build/logs/profile.log 2>&1 || echo "profile failed (see tests/build/logs/profile.log)"
cp docs/results/*.csv "$OUT/"

tar czf "$OUT/logs.tgz" tests/build/logs 2>/dev/null
echo
echo "GPU tests exit $test_rc, benchmark exit $bench_rc; results in $OUT"
tail -n 30 "$OUT/bench.log"
[ "$test_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
