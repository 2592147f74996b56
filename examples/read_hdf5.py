"""Read a motionprep `hdf5` dataset (docs/dataset-format.md, "HDF5 files") as a PyTorch-style map-style dataset.

    from read_hdf5 import WindowDataset
    ds = WindowDataset("build/walk/train.h5")
    x, y = ds[0]                         # x: [T, C] float32, y: int64 class id (-1 = unlabelled)
    print(len(ds), ds.class_names)

With PyTorch (optional: the class works without torch installed):

    loader = torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True, num_workers=4)

The file is opened lazily, once per process, on first access: an h5py handle must not be shared
across the fork of DataLoader workers. Normalise with the train statistics in manifest.json
(`normalization.x.mean` / `.std`, one value per channel).
"""
import h5py
import numpy as np

try:
    from torch.utils.data import Dataset as _Base
except ImportError:
    _Base = object


class WindowDataset(_Base):
    """The windows of one split's .h5 file: ds[i] is (x [T, C] float32, y int64)."""

    def __init__(self, path, features=False):
        self.path = str(path)
        self.features = features
        self._file = None
        with h5py.File(self.path, "r") as f:  # read the metadata, then close before any fork
            self._len = f["x"].shape[0]
            self.class_names = list(f.attrs["class_names"])
            self.channel_names = list(f.attrs["channel_names"])
            self.sample_rate_hz = float(f.attrs["sample_rate_hz"])

    def _open(self):
        if self._file is None:
            self._file = h5py.File(self.path, "r")
        return self._file

    def __len__(self):
        return self._len

    def __getitem__(self, i):
        if not -self._len <= i < self._len:
            raise IndexError(i)
        f = self._open()
        x = np.asarray(f["x"][i], dtype=np.float32)
        y = np.int64(f["y"][i])
        if self.features:
            return x, np.asarray(f["features"][i], dtype=np.float32), y
        return x, y

    def __getstate__(self):  # pickled into workers without the open handle
        state = dict(self.__dict__)
        state["_file"] = None
        return state

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None


if __name__ == "__main__":
    import sys
    ds = WindowDataset(sys.argv[1] if len(sys.argv) > 1 else "build/walk/train.h5")
    print(len(ds), "windows; classes", ds.class_names)
    if len(ds):
        x, y = ds[0]
        print("x", x.shape, x.dtype, "y", y)
