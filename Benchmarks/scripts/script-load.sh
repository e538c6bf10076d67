#!/bin/sh
# SQL text and CSV throughput of the `granite` command against the `sqlite3` shell on the same inputs: an N-line
# INSERT script piped into `granite sql` / `sqlite3` with BEGIN/COMMIT, as a dump has, and the same script loaded by
# `granite import --sql` (against `sqlite3 NEW < script` again, with rows per second); the first N/500 lines of it
# without BEGIN/COMMIT (one durable transaction per statement on both: sqlite3 syncs its journal at every commit,
# some 7 ms each on an ext4 disk, so a whole autocommit script would take hours); and an N-row CSV file loaded by `granite import --csv` / `sqlite3 .import`.
# Prints the median wall time (with the range) and the median peak resident memory of RUNS runs of each.
#
# usage: Benchmarks/scripts/script-load.sh GRANITE_BINARY [LINES (default 1000000)] [RUNS (default 3)]
# (build the binary with `swift build -c release --product granite`; needs sqlite3 and GNU /usr/bin/time)
set -eu
granite=$1
lines=${2:-1000000}
runs=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk -v n="$lines" 'BEGIN {
    print "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT);"
    for (i = 1; i <= n; i++) printf "INSERT INTO t VALUES(%d, '\''name %d'\'', %d.25, '\''it'\'''\''s; row %d'\'');\n", i, i, i % 1000, i
}' > "$work/all.sql"
{ echo "BEGIN TRANSACTION;"; cat "$work/all.sql"; echo "COMMIT;"; } > "$work/transaction.sql"
head -n $((lines / 500 + 1)) "$work/all.sql" > "$work/autocommit.sql"
awk -v n="$lines" 'BEGIN {
    print "id,name,score,note"
    for (i = 1; i <= n; i++) printf "%d,name %d,%d.25,\"it'\''s, row %d\"\n", i, i, i % 1000, i
}' > "$work/rows.csv"

# Runs "$@" RUNS times on a fresh database; prints "median s (min-max), median MB", and the median's rows per second
# when ROWS is set.
measure() {
    : > "$work/times"
    i=0
    while [ "$i" -lt "$runs" ]; do
        rm -f "$work/db" "$work/db-wal" "$work/db-shm" "$work/db-journal"
        /usr/bin/time -f "%e %M" -o "$work/one" "$@" > /dev/null 2> "$work/stderr" || {
            cat "$work/stderr" >&2
            exit 1
        }
        cat "$work/one" >> "$work/times"
        i=$((i + 1))
    done
    sort -n "$work/times" | awk -v rows="${ROWS:-0}" '{ t[NR] = $1; m[NR] = $2 } END {
        mid = int((NR + 1) / 2); printf "%.2f s (%.2f-%.2f), %.0f MB", t[mid], t[1], t[NR], m[mid] / 1024
        if (rows > 0 && t[mid] > 0) printf ", %.0f rows/s", rows / t[mid]
        printf "\n" }'
}

echo "$lines lines/rows ($((lines / 500)) autocommit), $runs runs each, load $(cut -d' ' -f1-3 /proc/loadavg)"
for script in transaction autocommit; do
    printf '%-28s granite ' "script ($script):"
    measure sh -c "'$granite' sql '$work/db' < '$work/$script.sql'"
    printf '%-28s sqlite3 ' ""
    measure sh -c "sqlite3 '$work/db' < '$work/$script.sql'"
done
printf '%-28s granite ' "import --sql (transaction):"
ROWS=$lines measure "$granite" import "$work/db" --sql "$work/transaction.sql"
printf '%-28s sqlite3 ' ""
ROWS=$lines measure sh -c "sqlite3 '$work/db' < '$work/transaction.sql'"
printf '%-28s granite ' "csv import:"
measure "$granite" import "$work/db" --csv "$work/rows.csv" --table t --header
printf '%-28s sqlite3 ' ""
measure sqlite3 "$work/db" ".import --csv '$work/rows.csv' t"
