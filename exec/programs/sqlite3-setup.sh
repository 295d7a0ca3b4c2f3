#!/bin/sh
# sqlite3-setup.sh - setup of prog:sqlite3, run once in $HB_WORKDIR: writes orders.csv
# (250 000 deterministic rows, ~12 MiB, made by sqlite3 itself) and query.sql (the measured
# script, sqlite3-query.sql with the CSV's absolute path filled in).
# Always holds: same files on every run; exits non-zero when sqlite3 fails.
set -eu
sqlite3 -csv :memory: "
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250000)
SELECT i, (i * 7919) % 5000, (i * 104729) % 97,
       printf('customer-%05d-%s', (i * 31) % 20000, substr('abcdefghijklmnopqrstuvwxyz', 1 + (i * 31) % 20000 % 26)),
       ((i * 2654435761) % 100000) / 100.0
FROM n" >orders.csv
sed "s|@WORKDIR@|$HB_WORKDIR|g" "$HB_PROGDIR/sqlite3-query.sql" >query.sql
