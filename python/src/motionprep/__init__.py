"""Read motionprep datasets for training (docs/python.md; the format is docs/dataset-format.md).

    import motionprep
    ds = motionprep.open_dataset("build/walk")
    a = ds.arrays("train", normalize=True)      # numpy, canonical order
    train, val = ds.folds(0)                    # train on folds != 0, validate on fold 0
    torch_ds = ds.torch_dataset(train)          # PyTorch Dataset (HDF5) / IterableDataset (shards)
    hf = ds.hf_dataset("validation")            # Hugging Face datasets.Dataset

numpy, h5py and zstandard are required; torch and datasets are imported only when asked for.
"""
from ._dataset import FORMAT_VERSION, SPLITS, Dataset, Normalization, Stats, View, open_dataset
from ._errors import ChecksumError, ConsistencyError, DatasetError, FormatVersionError, NotADatasetError
from ._shards import iter_shard

__version__ = "0.1.0"

__all__ = ["open_dataset", "Dataset", "View", "Normalization", "Stats", "iter_shard", "DatasetError",
           "NotADatasetError", "FormatVersionError", "ChecksumError", "ConsistencyError", "FORMAT_VERSION", "SPLITS", "__version__"]
