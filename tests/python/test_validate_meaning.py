"""`motionprep validate` checks what a dataset means, not only its checksums (docs/validate.md,
"Consistency rules"): each test forges a dataset the way a tool bug or a hand edit followed by
recomputed sums would (h5py or a byte patch of a shard, then SHA256SUMS and the manifest's
`sha256`/`bytes` rewritten to match) and asserts that validate fails the rule's check, and only
that check, with one sentence naming the file, the position and the values. The untouched
datasets pass."""
import hashlib
import io
import json
import shutil
import tarfile

import h5py
import numpy as np
import pytest
import zstandard

from conftest import motionprep

PIPELINE = """\
version: 1
name: validate-meaning
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {{rate_hz: 50, max_gap_s: 0.2, antialias: false}}
window: {{length_samples: 128, stride_samples: 64}}
labels: {{from: rows, policy: majority, min_fraction: 0.8, map: {{W: walk, T: turn}}, classes: [walk, turn]}}
features: [{features}]
split: {{seed: 42, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}}}
output: {output}
"""

# Every feature motionprep computes (docs/signal.md, "Features"): sorted, spectral (kissfft) and
# `corr` ones are all recomputed by `features.recomputed`.
ALL_FEATURES = ("mean, std, var, min, max, range, median, iqr, rms, mad, skew, kurtosis, zero_crossings, energy, "
                "dominant_freq_hz, spectral_entropy, spectral_centroid_hz, corr")

STORAGES = {
    "hdf5": "{type: hdf5, path: meaning-h5}",
    "shards": "{type: shards, path: meaning-shards, windows_per_shard: 40}",
    "tar": "{type: shards, path: meaning-tar, windows_per_shard: 40, compression: none}",
}


@pytest.fixture(scope="module")
def built(walk_data):
    out = {}
    for name, output in STORAGES.items():
        (walk_data / f"meaning-{name}.yaml").write_text(PIPELINE.format(output=output, features=ALL_FEATURES))
        motionprep("run", walk_data / f"meaning-{name}.yaml", "--quiet")
        out[name] = walk_data / output.split("path: ")[1].split(",")[0].rstrip("}")
    return out


@pytest.fixture(params=list(STORAGES))
def storage(request):
    return request.param


@pytest.fixture
def copy(built, storage, tmp_path):
    target = tmp_path / "dataset"
    shutil.copytree(built[storage], target)
    return target


def manifest_of(root):
    return json.loads((root / "manifest.json").read_text())


def write_manifest(root, manifest):
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))


def fix_checksums(root, name):
    """What a forger does after editing `name`: its size and SHA-256 rewritten in manifest.json
    and SHA256SUMS."""
    data = (root / name).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    manifest = manifest_of(root)
    for split in manifest["splits"].values():
        for f in split["files"]:
            if f["path"] == name:
                f["sha256"], f["bytes"] = digest, len(data)
    write_manifest(root, manifest)
    lines = [f"{digest}  {name}" if line.endswith("  " + name) else line
             for line in (root / "SHA256SUMS").read_text().splitlines()]
    (root / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def failures(root):
    """(failed check ids, text lines of failures) of `validate root`."""
    proc = motionprep("validate", root, check=False)
    report = json.loads(motionprep("validate", root, "--format", "json", check=False).stdout)
    failed = [c["id"] for c in report["checks"] if c["status"] == "failed"]
    return proc, failed, [line for line in proc.stdout.splitlines() if ": FAILED: " not in line and line.strip()]


# MARK: shards, patched in place


class Shard:
    """A shard's tar bytes (decompressed when `.tar.zst`) with its members; `save` writes it back
    the way motionprep does (one zstd frame with content size and checksum)."""

    def __init__(self, root, path):
        self.root, self.path = root, path
        raw = (root / path).read_bytes()
        self.zstd = path.endswith(".zst")
        self.data = bytearray(zstandard.ZstdDecompressor().decompress(raw) if self.zstd else raw)
        with tarfile.open(fileobj=io.BytesIO(bytes(self.data))) as t:
            self.members = {m.name: (m.offset_data, m.size) for m in t.getmembers()}

    def read(self, name):
        o, n = self.members[name]
        return bytes(self.data[o:o + n])

    def write(self, name, payload):
        o, n = self.members[name]
        assert len(payload) == n, (name, len(payload), n)
        self.data[o:o + n] = payload

    def keys(self):
        return sorted({name.split(".")[0] for name in self.members})

    def save(self):
        raw = bytes(self.data)
        if self.zstd:
            raw = zstandard.ZstdCompressor(level=3, write_content_size=True, write_checksum=True).compress(raw)
        (self.root / self.path).write_bytes(raw)
        fix_checksums(self.root, self.path)


def first_shard(root, split):
    return manifest_of(root)["splits"][split]["files"][0]["path"]


# MARK: untouched


def test_untouched_datasets_pass(built):
    for root in built.values():
        proc = motionprep("validate", root, "--format", "json")
        checks = {c["id"]: c["status"] for c in json.loads(proc.stdout)["checks"]}
        for id in ("manifest.consistency", "splits.disjoint_windows", "windows.time_order", "files.metadata",
                   "features.recomputed"):
            assert checks[id] == "passed", (root, id)


# MARK: the same window in two splits


def test_window_copied_into_another_split(copy, storage):
    # The window's features come along (else `features.recomputed` fails too).
    if storage == "hdf5":
        with h5py.File(copy / "train.h5", "r") as f:
            row, features = f["x"][5], f["features"][5]
        with h5py.File(copy / "test.h5", "r+") as f:
            x, fs = f["x"][...], f["features"][...]
            x[2], fs[2] = row, features
            f["x"][...], f["features"][...] = x, fs
        fix_checksums(copy, "test.h5")
        where, other, name = "window 2", "window 5", "test.h5"
    else:
        train, test = Shard(copy, first_shard(copy, "train")), Shard(copy, first_shard(copy, "test"))
        src, dst = train.keys()[5], test.keys()[2]
        test.write(dst + ".x.npy", train.read(src + ".x.npy"))
        test.write(dst + ".features.npy", train.read(src + ".features.npy"))
        test.save()
        n_src, n_dst = int(src.split("-")[1]), int(dst.split("-")[1])
        where, other, name = f"window {n_dst} (sample `{dst}`)", f"window {n_src} (sample `{src}`)", test.path
    m = manifest_of(copy)
    values = m["window_length"] * len(m["channels"])
    proc, failed, lines = failures(copy)
    assert proc.returncode == 1
    assert failed == ["splits.disjoint_windows"], proc.stdout
    assert lines == [f"{copy}/{name}: splits.disjoint_windows: {where} of split `test` has the same `x` (all {values} values, "
                     f"bit for bit) as {other} of `{first_shard(copy, 'train') if storage != 'hdf5' else 'train.h5'}` in split "
                     "`train`; 1 window(s) of this file are also in split `train`: a window in two splits leaks between "
                     "training and evaluation"], proc.stdout


# MARK: start_time_s going back within a recording


def test_start_time_going_back_within_a_recording(copy, storage):
    if storage == "hdf5":
        with h5py.File(copy / "train.h5", "r+") as f:
            t, r = f["start_time_s"][...], f["recording_index"][...]
            i = next(i for i in range(1, len(r)) if r[i] == r[i - 1])
            t[i] = t[i - 1] - 1.25
            f["start_time_s"][...] = t
            recording = str(f.attrs["recording_names"][r[i]])
        fix_checksums(copy, "train.h5")
        name, where, previous = "train.h5", f"window {i}", f"window {i - 1}"
        before, after = float(t[i - 1]), float(t[i])
    else:
        # Two samples of one recording next to each other in window order, in one shard: their
        # `start_time_s` swapped in their `json` members (same length, same label).
        manifest = manifest_of(copy)
        found = None
        for f in manifest["splits"]["train"]["files"]:
            shard = Shard(copy, f["path"])
            meta = {k: json.loads(shard.read(k + ".json")) for k in shard.keys()}
            by_number = {int(k.split("-")[1]): k for k in meta}
            for n, k in sorted(by_number.items()):
                k2 = by_number.get(n + 1)
                if k2 and meta[k]["recording"] == meta[k2]["recording"] and meta[k]["label"] == meta[k2]["label"] \
                        and len(shard.read(k + ".json")) == len(shard.read(k2 + ".json")):
                    found = (shard, k, k2, n)
                    break
            if found:
                break
        shard, k, k2, n = found
        a, b = shard.read(k + ".json"), shard.read(k2 + ".json")
        shard.write(k + ".json", b)
        shard.write(k2 + ".json", a)
        shard.save()
        recording = json.loads(a)["recording"]
        name, where, previous = shard.path, f"window {n + 1} (sample `{k2}`)", f"window {n} (sample `{k}`)"
        before, after = json.loads(b)["start_time_s"], json.loads(a)["start_time_s"]
    proc, failed, lines = failures(copy)
    assert proc.returncode == 1
    assert failed == ["windows.time_order"], proc.stdout
    assert lines == [f"{copy}/{name}: windows.time_order: `start_time_s` goes back within recording `{recording}`: "
                     f"{where} starts at {after!r} s, but {previous}, the window before it in that recording, starts at "
                     f"{before!r} s; each window of a recording must start later than the one before it (1 window(s) of "
                     "this file do not)"], proc.stdout


# MARK: the manifest against pipeline.resolved


def test_split_policy_disagreeing_with_the_pipeline(copy):
    m = manifest_of(copy)
    m["split_policy"]["seed"] = 43
    m["split_policy"]["fractions"]["train"], m["split_policy"]["fractions"]["validation"] = 0.25, 0.5
    write_manifest(copy, m)
    proc, failed, lines = failures(copy)
    assert failed == ["manifest.consistency"], proc.stdout
    assert lines == [
        f"{copy}/manifest.json: manifest.consistency: `split_policy.seed` is 43, but `pipeline.resolved.split.seed` is 42: "
        "the split policy must be the pipeline's",
        f"{copy}/manifest.json: manifest.consistency: `split_policy.fractions.train` is 0.25, but "
        "`pipeline.resolved.split.fractions.train` is 0.5: the split policy must be the pipeline's",
        f"{copy}/manifest.json: manifest.consistency: `split_policy.fractions.validation` is 0.5, but "
        "`pipeline.resolved.split.fractions.validation` is 0.25: the split policy must be the pipeline's",
    ], proc.stdout


def test_chain_disagreeing_with_the_pipeline(copy):
    m = manifest_of(copy)
    m["chain"]["antialias"] = True
    m["chain"]["streams"][0]["max_gap_s"] = 0.5
    write_manifest(copy, m)
    stream = m["chain"]["streams"][0]["name"]
    proc, failed, lines = failures(copy)
    assert failed == ["manifest.consistency"], proc.stdout
    assert lines == [
        f"{copy}/manifest.json: manifest.consistency: `chain.antialias` is true, but "
        "`pipeline.resolved.resample.antialias` is false: the chain must be the pipeline's",
        f"{copy}/manifest.json: manifest.consistency: `chain.streams[0].max_gap_s` (stream `{stream}`) is 0.5, but "
        "`pipeline.resolved.resample.max_gap_s` gives 0.2 for it: the chain must be the pipeline's",
    ], proc.stdout


def test_a_chain_that_does_not_decode_is_a_schema_fault_named_by_key_path(copy):
    """`chain` is one typed record (docs/dataset-format.md, "The processing chain"): a value of the
    wrong type is `manifest.schema`'s, with its key path, and the chain is then not compared (C3)."""
    m = manifest_of(copy)
    m["chain"]["streams"][0]["max_gap_s"] = "0.2"
    m["chain"]["antialias"] = not m["chain"]["antialias"]
    write_manifest(copy, m)
    proc, failed, lines = failures(copy)
    assert failed == ["manifest.schema"], proc.stdout
    assert lines == [f"{copy}/manifest.json: manifest.schema: `chain.streams[0].max_gap_s` must be a number, "
                     "not \"0.2\""], proc.stdout


@pytest.mark.parametrize("record, shown", [
    (["resample"], "must be an object of stage names and version numbers"),
    ({"resample": 0}, "`resample` must be a whole number of at least 1, not 0"),
    ({"features": "1"}, '`features` must be a whole number of at least 1, not "1"'),
])
def test_a_malformed_implementation_record(copy, record, shown):
    """`chain.implementation` (docs/dataset-format.md, "Implementation versions") is C3's: validate
    and the Python package's verify give the same sentence; a version this build does not
    implement is not a fault of the dataset."""
    import motionprep as package
    m = manifest_of(copy)
    assert m["chain"]["implementation"]["resample"] == 1
    m["chain"]["implementation"] = record
    write_manifest(copy, m)
    proc, failed, lines = failures(copy)
    sentence = f"`chain.implementation` {shown} (docs/dataset-format.md, \"Implementation versions\")"
    assert failed == ["manifest.consistency"], proc.stdout
    assert lines == [f"{copy}/manifest.json: manifest.consistency: {sentence}"], proc.stdout
    with pytest.raises(package.ConsistencyError) as e:
        package.open_dataset(copy, verify=True)
    assert str(e.value).endswith(sentence), str(e.value)


def test_an_implementation_of_a_newer_build_still_validates(copy):
    m = manifest_of(copy)
    m["chain"]["implementation"]["antialias"] = 7
    write_manifest(copy, m)
    assert motionprep("validate", copy, check=False).returncode == 0


def test_classes_disagreeing_with_the_pipeline(copy, storage):
    """`classes` renamed in the manifest and, for HDF5, in every file's `class_names`, so that the
    files and the manifest agree with each other but not with the pipeline."""
    m = manifest_of(copy)
    m["classes"] = ["walk", "run"]
    write_manifest(copy, m)
    if storage == "hdf5":
        for name in ("train.h5", "validation.h5", "test.h5"):
            with h5py.File(copy / name, "r+") as f:
                f.attrs["class_names"] = ["walk", "run"]
            fix_checksums(copy, name)
    proc, failed, lines = failures(copy)
    consistency = [line for line in lines if ": manifest.consistency: " in line]
    assert consistency == [
        f"{copy}/manifest.json: manifest.consistency: `classes` is [\"walk\", \"run\"], but "
        "`pipeline.resolved.labels.classes` is [\"walk\", \"turn\"]: the classes must be the pipeline's, in its order"]
    # Shards name each window's class in its `json` member, which still says `turn`.
    assert failed == (["manifest.consistency"] if storage == "hdf5" else ["manifest.consistency", "files.metadata"]), proc.stdout


def test_class_names_of_a_file_disagreeing_with_the_manifest(built, tmp_path):
    copy = tmp_path / "dataset"
    shutil.copytree(built["hdf5"], copy)
    with h5py.File(copy / "test.h5", "r+") as f:
        f.attrs["class_names"] = ["turn", "walk"]
    fix_checksums(copy, "test.h5")
    proc, failed, lines = failures(copy)
    assert failed == ["files.metadata"], proc.stdout
    assert lines == [f'{copy}/test.h5: files.metadata: root attribute `class_names` is ["turn", "walk"], but the '
                     'manifest says ["walk", "turn"]']


# MARK: HDF5 content the format does not define


def test_attributes_and_datasets_added_by_h5py(built, tmp_path):
    copy = tmp_path / "dataset"
    shutil.copytree(built["hdf5"], copy)
    with h5py.File(copy / "train.h5", "r+") as f:
        f.attrs["note"] = "relabelled by hand"
        f["x"].attrs["units"] = "g"
        f.create_dataset("extra", data=np.zeros(f["y"].shape[0], dtype="<i8"), chunks=True)
    fix_checksums(copy, "train.h5")
    proc, failed, lines = failures(copy)
    assert failed == ["files.metadata", "arrays.shape"], proc.stdout
    rows = len(h5py.File(copy / "train.h5", "r")["y"])
    assert lines == [
        f"{copy}/train.h5: files.metadata: holds a root attribute `note` that the format does not define "
        "(docs/dataset-format.md, \"HDF5 files\": only `format`, `format_version`, `split`, `sample_rate_hz`, "
        "`window_length`, `window_stride`, `channel_names`, `channel_units`, `class_names`, `feature_names`, "
        "`subject_names`, `recording_names`); motionprep writes no other",
        f"{copy}/train.h5: files.metadata: dataset `x` holds an attribute `units` that the format does not define "
        "(docs/dataset-format.md, \"HDF5 files\": datasets carry no attributes)",
        f"{copy}/train.h5: arrays.shape: holds an array `extra` (shape [{rows}]) that the manifest does not list",
    ], proc.stdout


# MARK: features recomputed from x


def test_feature_one_ulp_off(copy, storage):
    """One stored feature value moved to the next float32 (the smallest change there is): the
    recomputation from `x` is exact, so it fails, naming the window, the feature and both values."""
    m = manifest_of(copy)
    names = m["feature_names"]
    k = next(i for i, n in enumerate(names) if n.endswith("_spectral_entropy"))
    if storage == "hdf5":
        name = "test.h5"
        with h5py.File(copy / name, "r+") as f:
            features = f["features"][...]
            old = features[3, k]
            features[3, k] = new = np.nextafter(old, np.float32(np.inf), dtype=np.float32)
            f["features"][...] = features
            windows = len(features)
        fix_checksums(copy, name)
        where = "window 3"
    else:
        shard = Shard(copy, first_shard(copy, "test"))
        key = shard.keys()[3]
        payload = bytearray(shard.read(key + ".features.npy"))
        start = len(payload) - 4 * len(names)
        values = np.frombuffer(bytes(payload[start:]), dtype="<f4").copy()
        old = values[k]
        values[k] = new = np.nextafter(old, np.float32(np.inf), dtype=np.float32)
        payload[start:] = values.tobytes()
        shard.write(key + ".features.npy", bytes(payload))
        shard.save()
        name, windows = shard.path, len(shard.keys())
        n = int(key.split("-")[1])
        where = f"window {n} (sample `{key}`)"
    proc, failed, lines = failures(copy)
    assert proc.returncode == 1
    assert failed == ["features.recomputed"], proc.stdout
    assert lines == [f"{copy}/{name}: features.recomputed: {where}, feature `{names[k]}`: `features` holds {str(new)}, but the "
                     f"run's feature code computes {str(old)} from the window's `x`; 1 value(s) in 1 of the {windows} window(s) "
                     "compared in this file differ (features must be recomputed from `x` bit for bit)"], proc.stdout


def test_feature_names_disagreeing_with_the_pipeline(copy):
    """`pipeline.resolved.features` reordered: the pipeline no longer gives the manifest's
    `feature_names`, so the features cannot be recomputed, and that fails (never passes)."""
    m = manifest_of(copy)
    m["pipeline"]["resolved"]["features"][:2] = ["std", "mean"]
    write_manifest(copy, m)
    channel = m["channels"][0]["name"]
    proc, failed, lines = failures(copy)
    assert proc.returncode == 1
    assert failed == ["features.recomputed"], proc.stdout
    assert len(lines) == 1 and lines[0].startswith(
        f"{copy}/manifest.json: features.recomputed: `feature_names` is [\"{channel}_mean\", \"{channel}_std\", "), proc.stdout
    assert f"but `pipeline.resolved.features` gives [\"{channel}_std\", \"{channel}_mean\", " in lines[0]
    assert lines[0].endswith("so the features cannot be recomputed: the feature names must be the pipeline's, in its order")


def test_dataset_without_features_passes(walk_data):
    """No features: nothing to recompute, and the check passes (it is not skipped)."""
    for name, output in (("hdf5", "{type: hdf5, path: meaning-nofeatures-h5}"),
                         ("shards", "{type: shards, path: meaning-nofeatures-shards, windows_per_shard: 40}")):
        pipeline = walk_data / f"meaning-nofeatures-{name}.yaml"
        pipeline.write_text(PIPELINE.format(output=output, features="").replace("features: []\n", ""))
        motionprep("run", pipeline, "--quiet")
        root = walk_data / output.split("path: ")[1].split(",")[0].rstrip("}")
        assert manifest_of(root)["feature_names"] == []
        proc = motionprep("validate", root, "--format", "json")
        checks = {c["id"]: c["status"] for c in json.loads(proc.stdout)["checks"]}
        assert checks["features.recomputed"] == "passed", proc.stdout
