"""The motionprep Python package (python/, docs/python.md) against datasets the binary just wrote:
HDF5, zstd shards and plain-tar shards of one pipeline with features and 3 folds, plus one without
folds or features. Every value the package gives is checked against a read of the raw files with
h5py, or tarfile + zstandard + numpy, and against numbers computed here by hand; the PyTorch
DataLoader runs with worker processes; the Hugging Face rows are compared too.

`make test` installs python/ into the venv first (and torch; these tests do not skip without it)."""
import io
import json
import pickle
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import h5py
import numpy as np
import pytest

import motionprep
from conftest import motionprep as run_motionprep

ROOT = Path(__file__).resolve().parents[2]
SPLITS = ("train", "validation", "test")
PER_SHARD = 20
FOLDS = 3

PIPELINE = """\
version: 1
name: pypkg
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {{rate_hz: 50, max_gap_s: 0.2, antialias: false}}
window: {{length_samples: 64, stride_samples: 32}}
{labels}{features}split: {{seed: 42, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}, allocation: exact{folds}}}
output: {output}
"""
LABELS = "labels: {from: rows, policy: majority, min_fraction: 0.8, map: {W: walk, T: turn}, classes: [walk, turn, run]}\n"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Six subjects; `run` is a listed class that gets no window (its weight is 0)."""
    root = tmp_path_factory.mktemp("pypkg")
    run_motionprep("synth", "--out", root / "data", "--subjects", 6, "--minutes", 1, "--seed", 11)
    outputs = {
        "h5": "{type: hdf5, path: out-h5}",
        "zstd": f"{{type: shards, path: out-zstd, windows_per_shard: {PER_SHARD}}}",
        "tar": f"{{type: shards, path: out-tar, windows_per_shard: {PER_SHARD}, compression: none}}",
    }
    for name, output in outputs.items():
        (root / f"{name}.yaml").write_text(PIPELINE.format(labels=LABELS, features="features: [mean, std]\n",
                                                           folds=f", folds: {FOLDS}", output=output))
    # Leave-one-out folds; and a dataset with no labels (every y is -1), no features and no folds.
    (root / "loo.yaml").write_text(PIPELINE.format(labels=LABELS, features="", folds=", leave_one_out: true",
                                                   output="{type: hdf5, path: out-loo}"))
    (root / "plain.yaml").write_text(PIPELINE.format(labels="", features="", folds="", output="{type: hdf5, path: out-plain}"))
    # More folds than the 3 train subjects: folds 3 to 8 are empty (run warns).
    for name, output in (("many-h5", "{type: hdf5, path: out-many-h5}"),
                         ("many-zstd", f"{{type: shards, path: out-many-zstd, windows_per_shard: {PER_SHARD}}}")):
        (root / f"{name}.yaml").write_text(PIPELINE.format(labels=LABELS, features="", folds=", folds: 9", output=output))
    for name in (*outputs, "loo", "plain", "many-h5", "many-zstd"):
        run_motionprep("run", root / f"{name}.yaml", "--quiet")
    return root


@pytest.fixture(scope="module")
def h5ref(data):
    """Every dataset of every split file, read with h5py."""
    out = {}
    for split in SPLITS:
        with h5py.File(data / "out-h5" / f"{split}.h5", "r") as f:
            out[split] = {k: f[k][...] for k in f}
    return out


def manifest(root):
    return json.loads((root / "manifest.json").read_text())


def raw_shards(root, split):
    """{window number: (x, y, features, meta)} read with tarfile + zstandard + numpy, not the package."""
    import zstandard
    out = {}
    for entry in manifest(root)["splits"][split]["files"]:
        blob = (root / entry["path"]).read_bytes()
        if entry["path"].endswith(".zst"):
            blob = zstandard.ZstdDecompressor().decompress(blob)
        members = {}
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:") as tar:
            for m in tar:
                members[m.name] = tar.extractfile(m).read()
        for name in members:
            if name.endswith(".json"):
                key = name[:-5]
                out[int(key.split("-")[1])] = (np.load(io.BytesIO(members[key + ".x.npy"])), int(members[key + ".y.cls"]),
                                               np.load(io.BytesIO(members[key + ".features.npy"])), json.loads(members[name]))
    return out


def by_hand(x, stats):
    mean, std = np.asarray(stats["mean"], np.float64), np.asarray(stats["std"], np.float64)
    return ((x.astype(np.float64) - mean) / np.where(std == 0, 1.0, std)).astype(np.float32)


def test_the_installed_package_is_this_worktrees_python_folder():
    installed = Path(motionprep.__file__).parent
    source = ROOT / "python/src/motionprep"
    names = sorted(p.name for p in source.iterdir() if p.is_file())
    assert names == sorted(p.name for p in installed.iterdir() if p.is_file()), \
        f"{installed} is not python/ of this tree: run `make venv` or `pip install ./python`"
    for name in names:
        assert (installed / name).read_bytes() == (source / name).read_bytes(), \
            f"{installed / name} differs from python/: reinstall with `pip install ./python`"


@pytest.mark.parametrize("which", ["h5", "zstd", "tar"])
def test_names_and_counts_come_from_the_manifest(data, which):
    root = data / f"out-{which}"
    ds = motionprep.open_dataset(root, verify=True)
    m = manifest(root)
    with h5py.File(data / "out-h5/train.h5", "r") as f:
        assert ds.classes == list(f.attrs["class_names"]) == ["walk", "turn", "run"]
        assert ds.channels == list(f.attrs["channel_names"]) and ds.channel_units == list(f.attrs["channel_units"])
        assert ds.feature_names == list(f.attrs["feature_names"]) and len(ds.feature_names) == 2 * len(ds.channels)
        assert ds.subjects == list(f.attrs["subject_names"]) and ds.recordings == list(f.attrs["recording_names"])
        assert ds.sample_rate_hz == 50.0 and ds.window_length == 64 and ds.window_stride == 32
    assert ds.storage == ("hdf5" if which == "h5" else "shards") and ds.splits == SPLITS
    assert ds.num_folds == FOLDS and ds.has_features
    for split in SPLITS:
        assert ds.num_windows(split) == m["splits"][split]["num_windows"] == len(ds.view(split)) > 0
        assert [p.relative_to(root).as_posix() for p in ds.files(split)] == [f["path"] for f in m["splits"][split]["files"]]
    assert ds.manifest == m
    assert str(root) in repr(ds)


@pytest.mark.parametrize("which", ["h5", "zstd", "tar"])
def test_arrays_equal_the_raw_files_in_canonical_order(data, h5ref, which):
    ds = motionprep.open_dataset(data / f"out-{which}")
    m = manifest(data / "out-h5")
    for split in SPLITS:
        a = ds.arrays(split)
        ref = h5ref[split]
        assert set(a) == set(ref) | {"window"}
        for k in ref:
            assert a[k].dtype == ref[k].dtype and a[k].shape == ref[k].shape, k
            assert a[k].tobytes() == ref[k].tobytes(), k
        assert a["window"].tolist() == list(range(len(ref["y"])))
        if which != "h5":  # and the samples read by hand from the archives
            raw = raw_shards(data / f"out-{which}", split)
            assert sorted(raw) == list(range(len(ref["y"])))
            for w, (x, y, f, meta) in raw.items():
                assert x.tobytes() == a["x"][w].tobytes() and y == a["y"][w] and f.tobytes() == a["features"][w].tobytes()
                assert meta["subject"] == m["subjects"][a["subject_index"][w]]
                assert meta["fold_index"] == a["fold_index"][w] and meta["start_time_s"] == a["start_time_s"][w]


@pytest.mark.parametrize("which", ["zstd", "tar"])
def test_windows_in_storage_order_equal_what_webdataset_reads(data, which):
    wds = pytest.importorskip("webdataset")
    ds = motionprep.open_dataset(data / f"out-{which}")
    for split in SPLITS:
        urls = [f"pipe:zstd -dc < {p}" if p.name.endswith(".zst") else str(p) for p in ds.files(split)]
        ref = list(wds.WebDataset(urls, shardshuffle=False).decode().to_tuple("__key__", "x.npy", "y.cls", "features.npy", "json"))
        got = list(ds.iter_windows(split))
        assert [g["key"] for g in got] == [r[0] for r in ref] and len(got) == ds.num_windows(split)
        for g, (key, x, y, f, meta) in zip(got, ref):
            assert g["x"].tobytes() == x.tobytes() and g["y"] == y and g["features"].tobytes() == f.tobytes()
            assert g["meta"] == meta and g["window"] == int(key.split("-")[1])


@pytest.mark.parametrize("which", ["h5", "zstd"])
def test_normalisation_is_the_manifests_float64_statistics(data, h5ref, which):
    ds = motionprep.open_dataset(data / f"out-{which}")
    stats = manifest(data / "out-h5")["normalization"]
    assert np.array_equal(ds.normalization.x.mean, stats["x"]["mean"]) and ds.normalization.x.mean.dtype == np.float64
    assert np.array_equal(ds.normalization.features.std, stats["features"]["std"])
    for split in SPLITS:
        a = ds.arrays(split, normalize=True)
        assert a["x"].dtype == np.float32 and a["features"].dtype == np.float32
        assert a["x"].tobytes() == by_hand(h5ref[split]["x"], stats["x"]).tobytes()
        assert a["features"].tobytes() == by_hand(h5ref[split]["features"], stats["features"]).tobytes()
    # The statistics are the train split's: normalised train x has mean 0 and std 1 per channel.
    x = ds.arrays("train", normalize=True)["x"].astype(np.float64).reshape(-1, len(ds.channels))
    np.testing.assert_allclose(x.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(x.std(axis=0), 1, atol=1e-5)


def test_a_constant_channel_is_divided_by_one(data, h5ref, tmp_path):
    copy = tmp_path / "zero-std"
    shutil.copytree(data / "out-h5", copy)
    m = manifest(copy)
    m["normalization"]["x"]["std"][1] = 0.0
    (copy / "manifest.json").write_text(json.dumps(m))
    a = motionprep.open_dataset(copy).arrays("test", normalize=True)
    x = h5ref["test"]["x"]
    expected = (x[:, :, 1].astype(np.float64) - m["normalization"]["x"]["mean"][1]).astype(np.float32)
    assert np.all(np.isfinite(a["x"])) and a["x"][:, :, 1].tobytes() == expected.tobytes()
    assert a["x"].tobytes() == by_hand(x, m["normalization"]["x"]).tobytes()


@pytest.mark.parametrize("which", ["h5", "tar"])
def test_class_weights_are_balanced_and_zero_for_an_absent_class(data, h5ref, which):
    ds = motionprep.open_dataset(data / f"out-{which}")
    for split in SPLITS:
        y = h5ref[split]["y"]
        counts = np.bincount(y[y >= 0], minlength=3)
        assert counts[2] == 0 and counts[0] > 0 and counts[1] > 0
        assert ds.class_counts(split).tolist() == counts.tolist()
        with pytest.warns(UserWarning, match=r"class\(es\) run have no window in '" + split):
            w = ds.class_weights(split)
        n = counts.sum()
        assert w.dtype == np.float32  # the logits' dtype: CrossEntropyLoss(weight=torch.tensor(w))
        assert w.tolist() == np.array([n / (2 * counts[0]), n / (2 * counts[1]), 0.0], np.float32).tolist()
        assert (w.astype(np.float64) * counts).sum() == pytest.approx(n, rel=1e-6)


@pytest.mark.parametrize("which", ["h5", "zstd"])
def test_folds_train_on_the_others_and_validate_on_k(data, h5ref, which):
    ds = motionprep.open_dataset(data / f"out-{which}")
    ref = h5ref["train"]
    folds = ref["fold_index"]
    assert set(folds.tolist()) == set(range(FOLDS))
    seen = []
    for k in range(FOLDS):
        train, val = ds.folds(k)
        assert (train.name, val.name) == (f"train[fold!={k}]", f"train[fold=={k}]")
        assert train.indices().tolist() == np.flatnonzero(folds != k).tolist()
        assert val.indices().tolist() == np.flatnonzero(folds == k).tolist()
        assert len(train) + len(val) == len(folds)
        for view, rows in ((train, folds != k), (val, folds == k)):
            a = view.arrays()
            for name in ("x", "y", "features", "subject_index", "fold_index"):
                assert a[name].tobytes() == ref[name][rows].tobytes(), name
            y = ref["y"][rows]
            assert view.class_counts().tolist() == np.bincount(y, minlength=3).tolist()
        # Subjects do not cross folds.
        assert not set(ref["subject_index"][folds == k]) & set(ref["subject_index"][folds != k])
        seen += val.indices().tolist()
    assert sorted(seen) == list(range(len(folds)))


def test_leave_one_out_folds_hold_out_one_subject_each(data):
    ds = motionprep.open_dataset(data / "out-loo")
    with h5py.File(data / "out-loo/train.h5", "r") as f:
        subjects, folds = f["subject_index"][...], f["fold_index"][...]
    assert ds.num_folds == len(set(subjects.tolist())) >= 2 and ds.manifest["split_policy"]["leave_one_out"] is True
    held = []
    for k in range(ds.num_folds):
        train, val = ds.folds(k)
        assert val.indices().tolist() == np.flatnonzero(folds == k).tolist()
        (subject,) = set(val.arrays()["subject_index"].tolist())
        assert subject not in set(train.arrays()["subject_index"].tolist())
        held.append(subject)
    assert sorted(held) == sorted(set(subjects.tolist()))


@pytest.mark.parametrize("which", ["h5", "zstd"])
def test_an_empty_fold_gives_an_empty_validation_view(data, which):
    ds = motionprep.open_dataset(data / f"out-many-{which}")
    assert ds.num_folds == 9
    with h5py.File(data / "out-many-h5/train.h5", "r") as f:
        folds = f["fold_index"][...]
    empty = [k for k in range(9) if k not in set(folds.tolist())]
    assert empty
    train, val = ds.folds(empty[0])
    assert len(val) == 0 and len(train) == len(folds)
    a = val.arrays(normalize=True)
    assert a["x"].shape == (0, 64, len(ds.channels)) and a["y"].shape == (0,)
    assert val.class_counts().tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match=r"split 'train\[fold==\d\]' has no labelled window"):
        val.class_weights()
    assert _loader_items(val.torch_dataset(with_index=True), workers=2) == []
    assert len(_loader_items(train.torch_dataset(with_index=True), workers=2)) == len(folds)


def test_a_dataset_without_labels_features_or_folds(data, tmp_path):
    plain = motionprep.open_dataset(data / "out-plain")
    assert plain.classes == [] and plain.feature_names == [] and plain.num_folds is None and not plain.has_features
    assert set(plain.arrays("train")["y"].tolist()) == {-1}
    with pytest.raises(ValueError, match=r"has no classes \(its pipeline has no `labels`\)"):
        plain.class_weights("train")
    items = _loader_items(plain.torch_dataset("validation", with_index=True), workers=2)
    assert [int(it[-1]) for it in items] == list(range(plain.num_windows("validation")))
    assert {int(it[1]) for it in items} == {-1}
    import datasets
    hf = plain.hf_dataset("test", cache_dir=str(tmp_path / "hf"))
    assert hf.features["y"] == datasets.Value("int64") and set(hf["y"]) == {-1}
    assert "features" not in hf.column_names and "fold_index" not in hf.column_names


def test_fold_errors(data):
    plain = motionprep.open_dataset(data / "out-plain")
    with pytest.raises(ValueError, match=r"has no folds .*split.folds"):
        plain.folds(0)
    ds = motionprep.open_dataset(data / "out-h5")
    for k in (FOLDS, -1, 1.0, "0", True):
        with pytest.raises(ValueError, match=r"fold .* does not exist; the dataset has folds 0 to 2"):
            ds.folds(k)
    with pytest.raises(ValueError, match="features=True but the dataset has no features"):
        plain.torch_dataset("train", features=True)


def _loader_items(dataset, workers, batch_size=7):
    import torch
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=workers)
    items = []
    for batch in loader:
        assert batch[0].dtype == torch.float32 and batch[-2].dtype == torch.int64
        items += zip(*(t.numpy() for t in batch))
    return items


@pytest.mark.parametrize("features", [False, True])
def test_torch_dataloader_with_workers_over_hdf5(data, h5ref, features):
    import torch  # noqa: F401  (not importorskip: `make test` installs torch, and this test must run there)
    ds = motionprep.open_dataset(data / "out-h5")
    stats = manifest(data / "out-h5")["normalization"]
    for split in SPLITS:
        tds = ds.torch_dataset(split, features=features, with_index=True)
        assert isinstance(tds, torch.utils.data.Dataset) and len(tds) == len(h5ref[split]["y"])
        items = _loader_items(tds, workers=2)
        assert [int(it[-1]) for it in items] == list(range(len(tds)))     # every window once, in order
        x = by_hand(h5ref[split]["x"], stats["x"])
        assert np.stack([it[0] for it in items]).tobytes() == x.tobytes()
        assert [int(it[-2]) for it in items] == h5ref[split]["y"].tolist()
        if features:
            f = by_hand(h5ref[split]["features"], stats["features"])
            assert np.stack([it[1] for it in items]).tobytes() == f.tobytes()
    # A fold view, shuffled by the DataLoader, not normalised: every window of fold 1 once.
    train, val = ds.folds(1)
    loader = torch.utils.data.DataLoader(ds.torch_dataset(val, normalize=False, with_index=True), batch_size=5,
                                         shuffle=True, num_workers=2)
    got = {int(w): x.numpy() for xb, _, wb in loader for x, w in zip(xb, wb)}
    assert sorted(got) == val.indices().tolist()
    assert all(got[w].tobytes() == h5ref["train"]["x"][w].tobytes() for w in got)


def test_torch_hdf5_dataset_is_picklable_after_opening_and_checks_its_index(data, h5ref):
    tds = motionprep.open_dataset(data / "out-h5").torch_dataset("validation", normalize=False)
    x, y = tds[3]
    assert x.numpy().tobytes() == h5ref["validation"]["x"][3].tobytes() and y == h5ref["validation"]["y"][3]
    assert tds[-1][1] == h5ref["validation"]["y"][-1]
    clone = pickle.loads(pickle.dumps(tds))   # the open h5py handle is not pickled
    assert clone._file is None and clone[3][0].numpy().tobytes() == x.numpy().tobytes()
    with pytest.raises(IndexError):
        tds[len(tds)]
    # A batch (what the DataLoader asks __getitems__ for): any order, repeats, negative indices.
    batch = [5, 1, 5, -2, 0, 9]
    assert [(it[0].numpy().tobytes(), it[1]) for it in tds.__getitems__(batch)] == \
        [(h5ref["validation"]["x"][i].tobytes(), h5ref["validation"]["y"][i]) for i in batch]
    assert tds.__getitems__([]) == []
    with pytest.raises(IndexError):
        tds.__getitems__([0, len(tds)])
    tds.close()
    clone.close()


@pytest.mark.filterwarnings("ignore:This DataLoader will create 3 worker processes")
@pytest.mark.parametrize("which", ["zstd", "tar"])
@pytest.mark.parametrize("workers", [2, 3])
def test_torch_dataloader_with_workers_over_shards_gives_every_window_once(data, h5ref, which, workers):
    import torch
    ds = motionprep.open_dataset(data / f"out-{which}")
    stats = manifest(data / "out-h5")["normalization"]
    for split in SPLITS:
        tds = ds.torch_dataset(split, features=True, with_index=True)
        assert isinstance(tds, torch.utils.data.IterableDataset) and len(tds) == ds.num_windows(split)
        assert len(ds.files(split)) >= 2
        items = _loader_items(tds, workers=workers)
        windows = [int(it[-1]) for it in items]
        assert sorted(windows) == list(range(ds.num_windows(split)))     # exactly once, across the workers
        order = np.argsort(windows)
        x = np.stack([items[i][0] for i in order])
        assert x.tobytes() == by_hand(h5ref[split]["x"], stats["x"]).tobytes()
        f = np.stack([items[i][1] for i in order])
        assert f.tobytes() == by_hand(h5ref[split]["features"], stats["features"]).tobytes()
        assert [int(items[i][2]) for i in order] == h5ref[split]["y"].tolist()
    # Each shard goes to one worker.
    shards = [tds.shards_for_worker(w, workers) for w in range(workers)]
    assert sorted(p for s in shards for p in s) == sorted(str(p) for p in ds.files("test"))


DISTRIBUTED = """\
import json, sys, torch, torch.distributed as dist
import motionprep
rank = int(sys.argv[1])
dist.init_process_group("gloo", init_method="file://" + sys.argv[2], rank=rank, world_size=2)
ds = motionprep.open_dataset(sys.argv[3])
loader = torch.utils.data.DataLoader(ds.torch_dataset("train", with_index=True), batch_size=8, num_workers=2)
print(json.dumps([int(w) for _, _, wb in loader for w in wb]))
dist.destroy_process_group()
"""


def test_torch_shards_under_torch_distributed_go_to_one_rank_and_worker_each(data, tmp_path):
    """Two ranks (gloo, a file store: no network) with two DataLoader workers each: every window once."""
    (tmp_path / "rank.py").write_text(DISTRIBUTED)
    procs = [subprocess.Popen([sys.executable, tmp_path / "rank.py", str(r), tmp_path / "store", data / "out-zstd"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in (0, 1)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    per_rank = [json.loads(o[0]) for o in outs]
    assert all(per_rank) and not set(per_rank[0]) & set(per_rank[1])
    assert sorted(per_rank[0] + per_rank[1]) == list(range(motionprep.open_dataset(data / "out-zstd").num_windows("train")))


def test_torch_shards_fold_view_and_shuffle(data, h5ref):
    import torch
    ds = motionprep.open_dataset(data / "out-zstd")
    folds = h5ref["train"]["fold_index"]
    train, val = ds.folds(2)
    tds = ds.torch_dataset(train, with_index=True, normalize=False)
    with pytest.raises(TypeError, match="take len\\(\\) of the View"):
        len(tds)
    windows = [int(it[-1]) for it in _loader_items(tds, workers=2)]
    assert sorted(windows) == np.flatnonzero(folds != 2).tolist()
    assert len(val) == int((folds == 2).sum()) == len(ds.torch_dataset(val))   # known once the view was counted
    # shuffle: another order per epoch, the same windows, each once.
    tds = ds.torch_dataset("train", with_index=True, shuffle=True, seed=5)
    orders = []
    for epoch in (0, 1):
        tds.set_epoch(epoch)
        orders.append([int(it[-1]) for it in _loader_items(tds, workers=2)])
    plain = [int(it[-1]) for it in _loader_items(ds.torch_dataset("train", with_index=True), workers=2)]
    assert sorted(orders[0]) == sorted(orders[1]) == list(range(len(folds)))
    assert len({tuple(orders[0]), tuple(orders[1]), tuple(plain)}) == 3
    loader = torch.utils.data.DataLoader(ds.torch_dataset("test"), batch_size=4, num_workers=0)
    assert sum(len(y) for _, y in loader) == ds.num_windows("test")


@pytest.mark.parametrize("which", ["h5", "tar"])
def test_hugging_face_rows_in_canonical_order(data, h5ref, which, tmp_path):
    import datasets
    ds = motionprep.open_dataset(data / f"out-{which}")
    m = manifest(data / "out-h5")
    hf = ds.hf_dataset("validation", cache_dir=str(tmp_path / "hf"))
    ref = h5ref["validation"]
    assert isinstance(hf, datasets.Dataset) and hf.num_rows == len(ref["y"])
    assert hf.features["y"].names == ["walk", "turn", "run"]
    assert hf["window"] == list(range(len(ref["y"])))
    assert np.asarray(hf["x"], np.float32).tobytes() == ref["x"].tobytes()
    assert np.asarray(hf["features"], np.float32).tobytes() == ref["features"].tobytes()
    assert hf["y"] == ref["y"].tolist() and hf["fold_index"] == ref["fold_index"].tolist()
    assert hf["subject"] == [m["subjects"][i] for i in ref["subject_index"]]
    assert hf["recording"] == [m["recordings"][i] for i in ref["recording_index"]]
    assert hf["start_time_s"] == ref["start_time_s"].tolist()
    # A fold, normalised, in numpy format.
    _, val = ds.folds(0)
    rows = h5ref["train"]
    hv = ds.hf_dataset(val, normalize=True, cache_dir=str(tmp_path / "hf")).with_format("numpy")
    sel = np.flatnonzero(rows["fold_index"] == 0)
    assert np.asarray(hv["window"]).tolist() == sel.tolist()
    assert np.asarray(hv["x"], np.float32).tobytes() == by_hand(rows["x"][sel], m["normalization"]["x"]).tobytes()


def test_the_hugging_face_cache_follows_the_files(data, tmp_path):
    """A dataset rewritten in the same folder gives new rows, not the cached ones."""
    pytest.importorskip("datasets")
    copy = tmp_path / "ds"
    shutil.copytree(data / "out-h5", copy)
    cache = str(tmp_path / "hf")
    before = motionprep.open_dataset(copy).hf_dataset("test", cache_dir=cache)
    shutil.rmtree(copy)
    shutil.copytree(data / "out-plain", copy)
    after = motionprep.open_dataset(copy).hf_dataset("test", cache_dir=cache)
    assert "features" in before.column_names and "features" not in after.column_names
    with h5py.File(copy / "test.h5", "r") as f:
        assert after.num_rows == len(f["y"])


def test_verify_names_a_changed_or_missing_file(data, tmp_path):
    for which, rel in (("h5", "validation.h5"), ("zstd", "train/train-00001.tar.zst")):
        copy = tmp_path / which
        shutil.copytree(data / f"out-{which}", copy)
        motionprep.open_dataset(copy, verify=True)
        blob = bytearray((copy / rel).read_bytes())
        blob[len(blob) // 2] ^= 1
        (copy / rel).write_bytes(bytes(blob))
        motionprep.open_dataset(copy)                        # not checked unless asked
        with pytest.raises(motionprep.ChecksumError, match=f"{rel}: SHA-256 is [0-9a-f]{{64}}, SHA256SUMS says"):
            motionprep.open_dataset(copy, verify=True)
        (copy / rel).unlink()
        with pytest.raises(motionprep.ChecksumError, match=f"{rel}: missing"):
            motionprep.open_dataset(copy, verify=True)
    # SHA256SUMS that disagrees with the manifest, leaves a file out, or is not `HEX  PATH` lines.
    sums = (copy / "SHA256SUMS").read_text()
    first = sums.splitlines()[0]
    (copy / "SHA256SUMS").write_text(sums.replace(first, "0" * 64 + first[64:]))
    with pytest.raises(motionprep.ChecksumError, match=r"SHA256SUMS: train/train-00000.tar.zst is listed with SHA-256 0{64}, manifest.json says"):
        motionprep.open_dataset(copy, verify=True)
    (copy / "SHA256SUMS").write_text(sums.replace(first + "\n", ""))
    with pytest.raises(motionprep.ChecksumError, match="train/train-00000.tar.zst, a file of manifest.json, is not listed"):
        motionprep.open_dataset(copy, verify=True)
    (copy / "SHA256SUMS").write_text(sums.replace(first, first.replace("  ", " ")))
    with pytest.raises(motionprep.ChecksumError, match=r"SHA256SUMS:1: not a `HEX  PATH` line"):
        motionprep.open_dataset(copy, verify=True)


def _write_manifest(folder, change):
    m = manifest(folder)
    change(m)
    (folder / "manifest.json").write_text(json.dumps(m))


def test_clear_errors_for_what_is_not_a_readable_dataset(data, tmp_path):
    with pytest.raises(FileNotFoundError, match="no such dataset folder"):
        motionprep.open_dataset(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match="not a folder"):
        motionprep.open_dataset(tmp_path / "file")
    (tmp_path / "empty").mkdir()
    with pytest.raises(motionprep.NotADatasetError, match="no manifest.json, so not a motionprep dataset; write one"):
        motionprep.open_dataset(tmp_path / "empty")
    (tmp_path / "empty.partial").mkdir()
    with pytest.raises(motionprep.NotADatasetError, match=r"empty.partial exists: a run into it has not finished"):
        motionprep.open_dataset(tmp_path / "empty")

    copy = tmp_path / "copy"
    shutil.copytree(data / "out-h5", copy)
    good = (copy / "manifest.json").read_text()
    (copy / "manifest.json").write_text(good[:200])
    with pytest.raises(motionprep.NotADatasetError, match=r"manifest.json: not valid JSON \(.*line \d+ column \d+"):
        motionprep.open_dataset(copy)
    (copy / "manifest.json").write_text(good)
    _write_manifest(copy, lambda m: m.update(format="something.else"))
    with pytest.raises(motionprep.NotADatasetError, match="`format` is 'something.else', not 'motionprep.dataset'"):
        motionprep.open_dataset(copy)
    (copy / "manifest.json").write_text(good)
    _write_manifest(copy, lambda m: m.update(format_version=1))
    with pytest.raises(motionprep.FormatVersionError, match="format_version 1 was written by an older motionprep; .*rerun `motionprep run`"):
        motionprep.open_dataset(copy)
    _write_manifest(copy, lambda m: m.update(format_version=3))
    with pytest.raises(motionprep.FormatVersionError, match="format_version 3 is not one this package reads \\(2\\)"):
        motionprep.open_dataset(copy)
    (copy / "manifest.json").write_text(good)
    _write_manifest(copy, lambda m: m.pop("splits"))
    with pytest.raises(motionprep.NotADatasetError, match="lacks splits; run `motionprep validate"):
        motionprep.open_dataset(copy)
    assert issubclass(motionprep.FormatVersionError, motionprep.DatasetError)

    (copy / "manifest.json").write_text(good)
    ds = motionprep.open_dataset(copy)
    for bad in ("trian", "Train", ""):
        with pytest.raises(ValueError, match=f"unknown split '{bad}'; the dataset has train, validation, test"):
            ds.arrays(bad)
    # A dataset whose train split had no window has no statistics: normalize=True says so.
    _write_manifest(copy, lambda m: m.update(normalization=None))
    ds = motionprep.open_dataset(copy)
    assert ds.normalization is None and ds.arrays("test")["x"].shape[0] > 0
    with pytest.raises(ValueError, match="no normalisation statistics .*normalize=True"):
        ds.arrays("test", normalize=True)
    with pytest.raises(ValueError, match="no normalisation statistics"):
        ds.torch_dataset("test")


@pytest.mark.parametrize("module, call, needles", [
    ("torch", "ds.torch_dataset('train')", ["ImportError: torch_dataset() needs PyTorch", "`pip install torch`"]),
    ("datasets", "ds.hf_dataset('train')", ["ImportError: hf_dataset() needs Hugging Face `datasets`", "`pip install datasets`"]),
])
def test_a_missing_optional_framework_is_named(data, module, call, needles):
    code = (f"import sys; sys.modules[{module!r}] = None\n"
            f"import motionprep\nds = motionprep.open_dataset({str(data / 'out-h5')!r})\n"
            f"print(len(ds.arrays('train')['y']))\n{call}")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 1 and p.stdout.strip().isdigit(), p.stderr
    assert all(n in p.stderr for n in needles), p.stderr


def test_the_package_needs_neither_torch_nor_datasets_to_import():
    code = "import sys; sys.modules['torch'] = None; sys.modules['datasets'] = None; import motionprep; print(motionprep.__version__)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert p.stdout.strip() == "0.1.0"


@pytest.mark.parametrize("script, which", [("read_hdf5.py", "h5"), ("read_shards.py", "zstd")])
def test_the_examples_run(data, script, which):
    p = subprocess.run([sys.executable, ROOT / "examples" / script, data / f"out-{which}", "test"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    n = manifest(data / "out-h5")["splits"]["train" if script == "read_hdf5.py" else "test"]["num_windows"]
    assert f"one epoch: {n} windows" in p.stdout, p.stdout


@pytest.mark.parametrize("which", ["loo", "plain", "many-h5", "many-zstd"])
def test_verify_passes_leave_one_out_unlabelled_and_empty_fold_datasets(data, which):
    """The consistency rules (docs/validate.md, "Consistency rules") hold for what `run` writes with
    leave-one-out folds (whose `split_policy.folds` is the number of train subjects, not the
    pipeline's), without labels or features, and with empty folds."""
    motionprep.open_dataset(data / f"out-{which}", verify=True)
