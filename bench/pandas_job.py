"""The bench pipeline (bench/peer_stages.py) done the way a pandas/numpy/h5py user would write it
first: multiprocessing over recordings, pandas' C CSV reader parsing every column of the file
(`read_csv` with no `usecols` or `dtype`), then the shared numpy stages and h5py output. bench.py's
weakest peer; bench/pandas_usecols_job.py is the careful one.

  pandas_job.py DATA_DIR OUT_DIR JOBS
"""
import glob
import os
import sys

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_stages as stages  # noqa: E402


def process(path):
    return stages.from_pandas(pd.read_csv(path, skipinitialspace=True, engine="c"))


if __name__ == "__main__":
    data, out, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    files = sorted(glob.glob(os.path.join(data, "**", "*.csv"), recursive=True))
    print(stages.run(process, files, data, out, jobs))
