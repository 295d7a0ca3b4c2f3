#!/bin/sh
# sqlite3-setup.sh - setup of prog:sqlite3, run once in $HB_WORKDIR: writes orders.csv
# (100 000 deterministic rows of 8 000 customers with a 40..159-byte note, ~15 MB, made by
# sqlite3 itself) and query.sql (the measured script, sqlite3-query.sql with the CSV's
# absolute path filled in). Sized for ~0.65 s of CPU under glibc (exec/README.md).
# Always holds: same files on every run; exits non-zero when sqlite3 fails.
set -eu
sqlite3 -csv :memory: "
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
SELECT i, (i * 7919) % 5000, (i * 104729) % 97,
       printf('customer-%05d-%s', (i * 31) % 8000, substr('abcdefghijklmnopqrstuvwxyz', 1 + (i * 31) % 8000 % 26)),
       ((i * 2654435761) % 100000) / 100.0, printf('%.*c', 40 + (i * 13) % 120, 'n')
FROM n" >orders.csv
sed "s|@WORKDIR@|$HB_WORKDIR|g" "$HB_PROGDIR/sqlite3-query.sql" >query.sql
