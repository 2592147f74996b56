"""Reading a motionprep `shards` dataset (WebDataset .tar.zst / .tar) with the motionprep Python package.

    pip install ./python torch           # from the motionprep repository
    python examples/read_shards.py build/walk-shards [split]

Streams the split's windows shard by shard (the write-time shuffled order), gathers the split
into numpy arrays in canonical order, and runs one epoch of a PyTorch DataLoader whose workers
share the shards out between them (skipped when torch is not installed). With the webdataset
package instead: `wds.WebDataset([f"pipe:zstd -dc < {p}" for p in ds.files(split)])`.
"""
import sys

import motionprep

ds = motionprep.open_dataset(sys.argv[1] if len(sys.argv) > 1 else "build/walk", verify=True)
split = sys.argv[2] if len(sys.argv) > 2 else "train"
for i, w in enumerate(ds.iter_windows(split)):            # one shard in memory at a time
    if i < 3:
        m = w["meta"]
        print(w["key"], w["x"].shape, w["y"], m["subject"], m["recording"], m["start_time_s"])
a = ds.arrays(split)                                      # canonical order: row i is window i
print(split, "x", a["x"].shape, "y", a["y"].shape, "classes", ds.classes)

try:
    import torch
except ImportError:
    sys.exit(0)
loader = torch.utils.data.DataLoader(ds.torch_dataset(split, shuffle=True), batch_size=32, num_workers=2)
print("one epoch:", sum(len(y) for _, y in loader), "windows")
