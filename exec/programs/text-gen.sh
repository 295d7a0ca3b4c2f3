#!/bin/sh
# text-gen.sh - setup of the compressors' programs (xz, zstd, pigz, pbzip2), run once in
# $HB_WORKDIR: writes in.txt, BYTES bytes (default 8 000 000) of numbered lines of words drawn
# from a skewed vocabulary of 5 000 (compressible like text: ~3.5:1 under xz -1), made by awk
# from a fixed seed.
# Always holds: the same file for the same BYTES and awk; exits non-zero when awk or head fails.
set -eu
awk 'BEGIN { srand(7); for (i = 0; ; i++) { n = 4 + int(rand() * 12); s = "";
    for (j = 0; j < n; j++) s = s sprintf("w%d ", int(rand() * rand() * 5000)); print i, s } }' |
    head -c "${BYTES:-8000000}" >in.txt
