#!/usr/bin/env bash
# tests/unit/stop_test.sh: stopping the suite ends every test it started.
# Runs tests/run.sh on a suite of its own whose tests start long sleeps (one
# directly, one through a shell, one in the background of a child), sends
# the suite a TERM as a user's kill (or make's, which passes TERM on to it)
# would, and passes when none of those processes is left.
set -u
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
tag=$((RANDOM * 32768 + RANDOM))
cat >"$t/pytest.ini" <<INI
[pytest]
python_files = test_*.py
addopts = -q -p no:cacheprovider
markers =
    host: a test
INI
cat >"$t/test_sleep.py" <<PY
import subprocess
import pytest

@pytest.mark.host
@pytest.mark.parametrize("how", ["direct", "shell", "background"])
def test_sleeps(how):
    if how == "direct":
        subprocess.run(["sleep", "$tag.1"])
    elif how == "shell":
        subprocess.run(["bash", "-c", "sleep $tag.2; true"])
    else:
        subprocess.run(["bash", "-c", "(sleep $tag.3 &) ; sleep $tag.4"])
PY
JOBS=3 TUTORIAL_TESTS=$t bash tests/run.sh --host >"$t/out" 2>&1 &
suite=$!
# every sleep itself (not only a shell that will start it) runs before the TERM
running() { for i in 1 2 3 4; do pgrep -f "^sleep $tag\\.$i\$" >/dev/null || return 1; done; }
for _ in $(seq 150); do
    running && break
    sleep 0.2
done
if ! running; then
    echo "the suite's tests did not all start:"
    tail -n 20 "$t/out"
    kill -TERM "$suite"
    wait "$suite"
    exit 1
fi
echo "running: the suite's four sleeps"
kill -TERM "$suite"
wait "$suite"
rc=$?
echo "the suite's exit status after TERM: $rc"
[ $rc = 130 ] || { echo "wants 130 (stopped)"; exit 1; }
sleep 1
left=$(pgrep -fa "sleep $tag\\." || true)
cat "$t/out" | tail -n 5
if [ -n "$left" ]; then
    echo "left running after the suite was stopped:"
    echo "$left"
    pkill -f "sleep $tag\\." || true
    exit 1
fi
echo "nothing the suite started is left"
