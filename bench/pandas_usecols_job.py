"""The bench pipeline (bench/peer_stages.py) with pandas the way a careful user would read the CSVs:
only the columns the pipeline needs (`usecols`: Source, Label, When, X, Y, Z; the device-motion
rows' six extra columns are skipped), explicit dtypes (float64 numbers, the one-letter Source code
and the Label text as categories), pandas' C reader, multiprocessing over recordings, then the
shared numpy stages and h5py output. (`engine="pyarrow"` cannot read MotionCollector files: their
rows have 6 or 12 fields, and Arrow's reader rejects rows shorter than the header.)

  pandas_usecols_job.py DATA_DIR OUT_DIR JOBS
"""
import glob
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_stages as stages  # noqa: E402

NAMES = ["Source", "Label", "When", "X", "Y", "Z"]
DTYPES = {"Source": "category", "Label": "category", "When": np.float64, "X": np.float64, "Y": np.float64, "Z": np.float64}


def read(path):
    """The six columns, found by their (stripped) header names, without parsing the others."""
    with open(path, newline="") as f:
        header = [h.strip() for h in f.readline().rstrip("\r\n").split(",")]
    return pd.read_csv(path, engine="c", header=None, skiprows=1, names=header,
                       usecols=NAMES, dtype=DTYPES)


def process(path):
    return stages.from_pandas(read(path))


if __name__ == "__main__":
    data, out, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    files = sorted(glob.glob(os.path.join(data, "**", "*.csv"), recursive=True))
    print(stages.run(process, files, data, out, jobs))
