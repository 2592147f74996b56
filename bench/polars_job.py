"""The bench pipeline (bench/peer_stages.py) with polars reading the CSVs: `pl.read_csv` (multi-
threaded, its own thread pool) of only the columns the pipeline needs (Source, Label, When, X, Y,
Z) with explicit dtypes, then the shared numpy stages and h5py output.

Recordings run `JOBS` at a time on a thread pool: polars parses without the GIL on all cores,
and numpy's large-array loops release it too. (polars' own thread pool does not survive fork(),
so a multiprocessing pool would need spawn-started workers each importing polars and numpy;
`--processes` does that, for comparison.)

  polars_job.py DATA_DIR OUT_DIR JOBS [--processes]
  polars_job.py --parse-only DATA_DIR JOBS
      just `read` (pl.read_csv of the six columns) of every file, JOBS files at a time on threads,
      each read multi-threaded itself: the fastest way to get the CSVs into polars found here (one
      file after another leaves cores idle in each read's serial parts, 1.2-2x slower; a lazy
      `pl.scan_csv` of all files collected into one frame is about as fast as the thread pool).
      Prints the row count and the seconds spent reading, without interpreter start and imports.
"""
import glob
import json
import multiprocessing as mp
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import polars as pl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_stages as stages  # noqa: E402

NAMES = ["Source", "Label", "When", "X", "Y", "Z"]


def read(path):
    """The six columns, selected by their header names as written (MotionCollector puts a space
    after each comma of the header), with explicit dtypes, renamed to the stripped names."""
    with open(path, newline="") as f:
        header = f.readline().rstrip("\r\n").split(",")
    cols = {h.strip(): h for h in header}
    sel = [cols[n] for n in NAMES]
    types = dict(zip(sel, [pl.Categorical, pl.String, pl.Float64, pl.Float64, pl.Float64, pl.Float64]))
    return pl.read_csv(path, columns=sel, schema_overrides=types).rename(dict(zip(sel, NAMES)))


def process(path):
    df = read(path).filter(pl.col("When").is_not_null())
    streams = []
    for code in stages.SENSORS:
        s = df.filter(pl.col("Source") == code).drop_nulls(["X", "Y", "Z"])
        streams.append(stages.clean(s["When"].to_numpy(), s.select("X", "Y", "Z").to_numpy(), code))
    lab = df.filter(pl.col("Label").is_not_null())
    return stages.windows(streams, lab["When"].to_numpy(), 
                          lab["Label"].str.strip_chars().replace_strict(stages.CLASSES, default=-2,
                                                                         return_dtype=pl.Int64).to_numpy())


if __name__ == "__main__":
    if sys.argv[1] == "--parse-only":
        files = sorted(glob.glob(os.path.join(sys.argv[2], "**", "*.csv"), recursive=True))
        start = time.perf_counter()
        with ThreadPoolExecutor(int(sys.argv[3])) as pool:
            rows = sum(df.height for df in pool.map(read, files))
        print(json.dumps({"rows": rows, "seconds": time.perf_counter() - start}))
        sys.exit(0)
    data, out, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    files = sorted(glob.glob(os.path.join(data, "**", "*.csv"), recursive=True))
    if "--processes" in sys.argv[4:]:
        mp.set_start_method("spawn")
        print(stages.run(process, files, data, out, jobs, pool="processes"))
    else:
        print(stages.run(process, files, data, out, jobs, pool="threads"))
