"""The bench's second parse-only peer: DuckDB's CSV reader on every file of the workload, JOBS
threads, the parsed columns materialised in DuckDB's own memory.

  duckdb_job.py DATA_DIR JOBS

One `read_csv` of the sorted list of files (DuckDB splits the files and the work over its
threads itself), with the 12 column names and types given (`columns=`, so nothing is sniffed
and MotionCollector's header, with a space after each comma, is skipped, not used for names):
Source and Label VARCHAR, the ten numbers DOUBLE. Only the six columns the pipeline needs
(Source, Label, When, X, Y, Z) are selected; DuckDB's projection pushdown leaves the other six
unconverted. The query is `CREATE TABLE t AS SELECT …`, so every one of the six columns of every
row of every file is parsed and stored in an in-memory table (the counterpart of the DataFrame
that polars' parse-only peer builds); then one aggregate over the table (count of each column,
sum of each number column) is fetched, which reads every stored value.

MotionCollector rows have 6 fields (A, G, M) or 12 (D) under a 12-column header: `null_padding`
makes the short rows' missing columns NULL. Without it DuckDB stops at the first short row
("CSV Error on Line: 2"). `ignore_errors` is not set, so a row DuckDB could not read would fail
the run rather than be dropped; bench.py also checks the row count against the files' lines.

Prints one JSON line: rows, the per-column counts and sums, and the seconds from the query's
start to the aggregate's result (without interpreter start and `import duckdb`).
"""
import glob
import json
import os
import sys
import time

import duckdb

COLUMNS = {"Source": "VARCHAR", "Label": "VARCHAR", "When": "DOUBLE", "X": "DOUBLE", "Y": "DOUBLE", "Z": "DOUBLE",
           "UA_X": "DOUBLE", "UA_Y": "DOUBLE", "UA_Z": "DOUBLE", "Pitch": "DOUBLE", "Roll": "DOUBLE", "Yaw": "DOUBLE"}

READ = """CREATE TABLE t AS SELECT Source, Label, "When", X, Y, Z
FROM read_csv($files, columns = $columns, header = true, delim = ',', quote = '', escape = '',
              null_padding = true, auto_detect = false, parallel = true)"""

CHECK = """SELECT count(*), count(Source), count(Label), count("When"), count(X), count(Y), count(Z),
       sum("When"), sum(X), sum(Y), sum(Z) FROM t"""


if __name__ == "__main__":
    data, jobs = sys.argv[1], int(sys.argv[2])
    files = sorted(glob.glob(os.path.join(data, "**", "*.csv"), recursive=True))
    con = duckdb.connect()
    con.execute(f"SET threads = {jobs}")
    start = time.perf_counter()
    con.execute(READ, {"files": files, "columns": COLUMNS})
    r = con.execute(CHECK).fetchone()
    seconds = time.perf_counter() - start
    print(json.dumps({"rows": r[0], "counts": dict(zip(["Source", "Label", "When", "X", "Y", "Z"], r[1:7])),
                      "sums": dict(zip(["When", "X", "Y", "Z"], r[7:])), "seconds": seconds}))
