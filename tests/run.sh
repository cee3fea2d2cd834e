#!/usr/bin/env bash
# The test suite: `make test` and `make test-gpu` run this. The tests are
# pytest functions (tests/test_*.py, shared parts in tests/conftest.py),
# run in parallel by pytest-xdist with pytest-timeout's limit per test.
#
#   bash tests/run.sh            make test: the host tier, then the quick GPU
#                                tier when a GPU is present
#   bash tests/run.sh --gpu      make test-gpu: the full GPU tier (exit 3 without a GPU)
#   bash tests/run.sh --host     the host tier only
#   CHAPTERS="01_naive 02_double_buffer" bash tests/run.sh   only those chapters
#   JOBS=4 bash tests/run.sh     tests at a time (default: the machine's cores)
#   bash tests/run.sh -- -k smem     anything after -- goes to pytest (-k, --lf, -x, ...)
#
# Each test prints a line when it ends (ok, FAIL or skip, its seconds, its
# name); its output is in tests/build/logs/; the run ends with the ten
# slowest tests and "N passed, N failed, N skipped", and exits 1 when
# anything failed. Stopping it (Ctrl-C, or a kill of this script or of make)
# ends every test it started: pytest and its tests run in a process group
# of their own, which this script ends when it is stopped.
set -u
cd "$(dirname "$0")/.."

mode=quick
case "${1:-}" in
--gpu) mode=full; shift ;;
--host) mode=host; shift ;;
--) ;;
"") ;;
*) echo "usage: $0 [--gpu|--host] [-- pytest arguments]" >&2; exit 2 ;;
esac
[ "${1:-}" = -- ] && shift

have_gpu() { nvidia-smi -L >/dev/null 2>&1; }
if [ $mode = full ] && ! have_gpu; then
    echo "make test-gpu: no NVIDIA GPU here (nvidia-smi -L failed)" >&2
    exit 3
fi
# Debian's python3 (or whichever python3 has the three plugins)
py=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import pytest, xdist, pytest_timeout' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
    echo "the suite needs pytest, pytest-xdist and pytest-timeout:" >&2
    echo "  apt-get install python3-pytest python3-pytest-xdist python3-pytest-timeout" >&2
    exit 3
fi

case $mode in
quick) marks="host or gpu" ;;
host) marks="host" ;;
full) marks="full" ;;
esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# pytest and everything it starts run in their own process group; stopping
# this script stops that group (TERM, then KILL what is left).
dir=${TUTORIAL_TESTS:-tests} # (tests/unit/stop_test.sh points it at a suite of its own)
setsid "$py" -m pytest -c "$dir/pytest.ini" -m "$marks" -n "$jobs" --dist loadgroup "$@" "$dir" &
pid=$!
stop() {
    trap '' INT TERM HUP
    echo "stopping the suite: ending every test it started" >&2
    kill -TERM -- "-$pid" 2>/dev/null
    sleep 3
    kill -KILL -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    exit 130
}
trap stop INT TERM HUP
wait "$pid"
rc=$?
exit $rc
