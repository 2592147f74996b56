"""Train-side reading of a motionprep `hdf5` dataset with the motionprep Python package (docs/python.md).

    pip install ./python torch           # from the motionprep repository
    python examples/read_hdf5.py build/walk

Prints the dataset's splits, normalisation and class weights, then one epoch of a PyTorch
DataLoader with worker processes over the train split, normalised with the manifest's statistics
(skipped when torch is not installed). The h5py file is opened in each worker, never shared.
"""
import sys

import motionprep

ds = motionprep.open_dataset(sys.argv[1] if len(sys.argv) > 1 else "build/walk", verify=True)
print(ds)
print("classes", ds.classes, "channels", ds.channels)
print("train class weights", ds.class_weights("train").round(3).tolist())
a = ds.arrays("validation", normalize=True)               # numpy: x [N, T, C], y [N], …
print("validation x", a["x"].shape, "y", a["y"].shape)
if ds.num_folds:
    train, val = ds.folds(0)                              # train on folds != 0, validate on fold 0
    print(f"fold 0: {len(train)} training windows, {len(val)} validation windows")

try:
    import torch
except ImportError:
    sys.exit(0)
loader = torch.utils.data.DataLoader(ds.torch_dataset("train"), batch_size=32, shuffle=True, num_workers=2)
windows = 0
for x, y in loader:                                       # x [B, T, C] float32, y [B] int64
    windows += len(y)
print(f"one epoch: {windows} windows in batches of {tuple(x.shape[1:])}")
