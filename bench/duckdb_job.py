"""The bench's second parse-only peer: DuckDB's CSV reader on every file of the workload, JOBS
threads, every value of the six needed columns parsed and consumed.

  duckdb_job.py DATA_DIR JOBS [--table]

One `read_csv` of the sorted list of files (DuckDB splits the files and the work over its
threads itself), with the 12 column names and types given (`columns=`, so nothing is sniffed
and MotionCollector's header, with a space after each comma, is skipped, not used for names):
Source and Label VARCHAR, the ten numbers DOUBLE. Only the six columns the pipeline needs
(Source, Label, When, X, Y, Z) are used; DuckDB's projection pushdown leaves the other six
unconverted. By default the query is one aggregate straight over the reader: `count(*)`,
`count(Source)`, `count(Label)` and the sums of When, X, Y and Z, which needs every one of the
six fields of every row of every file (a count of a VARCHAR column reads each field's NULL
state, a sum each converted double), while nothing is kept. `--table` instead stores the six
columns in an in-memory table (`CREATE TABLE t AS SELECT …`, the counterpart of the DataFrame
that polars' parse-only peer builds) and then runs the same aggregate over the table: 1.3-1.6x
slower here (docs/performance.md), so `make bench` uses the aggregate, the faster of the two.

MotionCollector rows have 6 fields (A, G, M) or 12 (D) under a 12-column header: `null_padding`
makes the short rows' missing columns NULL. Without it DuckDB stops at the first short row
("CSV Error on Line: 2"). `ignore_errors` is not set, so a row DuckDB could not read would fail
the run rather than be dropped; bench.py also checks the row count against the files' lines.

Prints one JSON line: rows, the per-column counts and sums, and the seconds from the query's
start to its result (without interpreter start and `import duckdb`).
"""
import glob
import json
import os
import sys
import time

import duckdb

COLUMNS = {"Source": "VARCHAR", "Label": "VARCHAR", "When": "DOUBLE", "X": "DOUBLE", "Y": "DOUBLE", "Z": "DOUBLE",
           "UA_X": "DOUBLE", "UA_Y": "DOUBLE", "UA_Z": "DOUBLE", "Pitch": "DOUBLE", "Roll": "DOUBLE", "Yaw": "DOUBLE"}

SCAN = """read_csv($files, columns = $columns, header = true, delim = ',', quote = '', escape = '',
                   null_padding = true, auto_detect = false, parallel = true)"""

AGGREGATE = """SELECT count(*), count(Source), count(Label), count("When"), count(X), count(Y), count(Z),
       sum("When"), sum(X), sum(Y), sum(Z) FROM {source}"""


if __name__ == "__main__":
    data, jobs = sys.argv[1], int(sys.argv[2])
    table = "--table" in sys.argv[3:]
    files = sorted(glob.glob(os.path.join(data, "**", "*.csv"), recursive=True))
    con = duckdb.connect()
    con.execute(f"SET threads = {jobs}")
    params = {"files": files, "columns": COLUMNS}
    start = time.perf_counter()
    if table:
        con.execute(f'CREATE TABLE t AS SELECT Source, Label, "When", X, Y, Z FROM {SCAN}', params)
        r = con.execute(AGGREGATE.format(source="t")).fetchone()
    else:
        r = con.execute(AGGREGATE.format(source=SCAN), params).fetchone()
    seconds = time.perf_counter() - start
    print(json.dumps({"rows": r[0], "counts": dict(zip(["Source", "Label", "When", "X", "Y", "Z"], r[1:7])),
                      "sums": dict(zip(["When", "X", "Y", "Z"], r[7:])), "mode": "table" if table else "aggregate",
                      "seconds": seconds}))
