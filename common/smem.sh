#!/usr/bin/env bash
# common/smem.sh - `make smem`: print "name bytes" for every kernel a
# chapter launches with dynamic shared memory, as built for one ARCH.
#
# Usage (from common.mk): smem.sh 'NVCC -E ... -DTUTORIAL_SMEM_REPORT' 'file.cu -DKNOB=v ...' ...
# Each launcher names its kernel and its byte count in an SMEM_REPORT() line
# (common/launch.cuh); preprocessed with that file's knobs, the line becomes
# a constant expression, which a small C program prints.
set -euo pipefail
pre=$1
shift
prog=$(mktemp -d)
trap 'rm -rf "$prog"' EXIT
{
    echo '#include <stdbool.h>'
    echo '#include <stddef.h>'
    echo '#include <stdio.h>'
    echo '#define tutorial_smem_row(name, bytes) printf("%s %zu\n", name, (size_t)(bytes))'
    echo 'int main(void) {'
} >"$prog/smem.c"
for entry in "$@"; do
    read -r file defs <<<"$entry"
    grep -q '^ *SMEM_REPORT(' "$file" || continue
    # shellcheck disable=SC2086
    $pre $defs "$file" | grep -o "tutorial_smem_row(.*;" | awk "!seen[\$0]++" >>"$prog/smem.c"
done
echo 'return 0; }' >>"$prog/smem.c"
cc -std=c11 -o "$prog/smem" "$prog/smem.c"
"$prog/smem" | awk '!seen[$1]++'
