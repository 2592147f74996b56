"""`motionprep.open_dataset(path, verify=True)` checks what a dataset means, not only its checksums
(docs/python.md, "Opening a dataset"; docs/validate.md, "Consistency rules"): each test forges a
dataset the way test_validate_meaning.py does — h5py or a byte patch of a shard, then SHA256SUMS and
the manifest's `sha256`/`bytes` recomputed — and asserts that verify raises ConsistencyError naming
the rule (C1–C6), the file and the window; the untouched datasets verify."""
import json
import re
import shutil

import h5py
import numpy as np
import pytest

import motionprep
from conftest import motionprep as run_motionprep
from test_validate_meaning import PIPELINE, Shard, first_shard, fix_checksums, manifest_of, write_manifest

STORAGES = {
    "hdf5": "{type: hdf5, path: verify-h5}",
    "shards": "{type: shards, path: verify-shards, windows_per_shard: 40}",
}
RULES = 'docs/validate.md, "Consistency rules"'


@pytest.fixture(scope="module")
def built(walk_data):
    out = {}
    for name, output in STORAGES.items():
        (walk_data / f"verify-{name}.yaml").write_text(PIPELINE.format(output=output, features="mean, std"))
        run_motionprep("run", walk_data / f"verify-{name}.yaml", "--quiet")
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


def refused(root, message):
    """verify raises ConsistencyError (a DatasetError) with exactly `message`; without verify the
    dataset still opens."""
    motionprep.open_dataset(root)
    with pytest.raises(motionprep.ConsistencyError, match="^" + re.escape(message) + "$") as e:
        motionprep.open_dataset(root, verify=True)
    assert isinstance(e.value, motionprep.DatasetError)


def test_untouched_datasets_verify(built):
    for root in built.values():
        motionprep.open_dataset(root, verify=True)
        assert run_motionprep("validate", root).returncode == 0


# MARK: C1, C2 in the manifest


def test_c1_split_policy_disagreeing_with_the_pipeline(copy):
    m = manifest_of(copy)
    m["split_policy"]["seed"] = 43
    write_manifest(copy, m)
    refused(copy, f"{copy}/manifest.json: rule C1 ({RULES}): `split_policy.seed` is 43, but "
                  "`pipeline.resolved.split.seed` is 42: the split policy must be the pipeline's")
    m["split_policy"]["seed"] = 42
    m["split_policy"]["fractions"]["test"] = 0.3
    write_manifest(copy, m)
    refused(copy, f"{copy}/manifest.json: rule C1 ({RULES}): `split_policy.fractions.test` is 0.3, but "
                  "`pipeline.resolved.split.fractions.test` is 0.25: the split policy must be the pipeline's")
    m["split_policy"]["fractions"]["test"] = 0.25
    m["split_policy"]["allocation"] = "exact"
    write_manifest(copy, m)
    refused(copy, f"{copy}/manifest.json: rule C1 ({RULES}): `split_policy.allocation` is \"exact\", but "
                  "`pipeline.resolved.split.allocation` is \"hash\": the split policy must be the pipeline's")


def test_c2_classes_disagreeing_with_the_pipeline(copy):
    m = manifest_of(copy)
    m["classes"] = ["walk", "run"]
    write_manifest(copy, m)
    refused(copy, f"{copy}/manifest.json: rule C2 ({RULES}): `classes` is [\"walk\", \"run\"], but "
                  "`pipeline.resolved.labels.classes` is [\"walk\", \"turn\"]: the classes must be the pipeline's, in its order")


# MARK: C3, the chain against pipeline.resolved

TRANSFORMS = """\
transforms:
  - median: {channels: [acc_x], samples: 3}
  - butterworth: {channels: [acc], order: 2, cutoff_hz: 10}
"""


@pytest.fixture(scope="module")
def with_transforms(walk_data):
    text = PIPELINE.format(output="{type: hdf5, path: verify-chain}", features="mean, std")
    (walk_data / "verify-chain.yaml").write_text(text.replace("split:", TRANSFORMS + "split:"))
    run_motionprep("run", walk_data / "verify-chain.yaml", "--quiet")
    return walk_data / "verify-chain"


@pytest.fixture
def chain_copy(with_transforms, tmp_path):
    target = tmp_path / "dataset"
    shutil.copytree(with_transforms, target)
    motionprep.open_dataset(target, verify=True)
    return target


def test_c3_chain_antialias_disagreeing_with_the_pipeline(copy):
    m = manifest_of(copy)
    assert m["chain"]["antialias"] is False and m["pipeline"]["resolved"]["resample"]["antialias"] is False
    m["chain"]["antialias"] = True
    write_manifest(copy, m)
    refused(copy, f"{copy}/manifest.json: rule C3 ({RULES}): `chain.antialias` is true, but "
                  "`pipeline.resolved.resample.antialias` is false: the chain must be the pipeline's")


@pytest.mark.parametrize("key, forged, shown, expected", [
    ("method", "cubic", '"cubic"', '"linear"'),
    ("max_gap_s", 0.5, "0.5", "0.2"),
])
def test_c3_a_streams_method_or_max_gap_disagreeing_with_the_pipeline(copy, key, forged, shown, expected):
    m = manifest_of(copy)
    stream = m["chain"]["streams"][0]
    stream[key] = forged
    write_manifest(copy, m)
    refused(copy, f"{copy}/manifest.json: rule C3 ({RULES}): `chain.streams[0].{key}` (stream `{stream['name']}`) is "
                  f"{shown}, but `pipeline.resolved.resample.{key}` gives {expected} for it: the chain must be the pipeline's")


def test_c3_a_stream_override_by_name_is_the_expected_value(copy):
    """A per-stream override in `pipeline.resolved.resample.max_gap_s` wins over `default`."""
    m = manifest_of(copy)
    stream = m["chain"]["streams"][0]
    m["pipeline"]["resolved"]["resample"]["max_gap_s"][stream["name"]] = 0.3
    write_manifest(copy, m)
    refused(copy, f"{copy}/manifest.json: rule C3 ({RULES}): `chain.streams[0].max_gap_s` (stream `{stream['name']}`) is "
                  "0.2, but `pipeline.resolved.resample.max_gap_s` gives 0.3 for it: the chain must be the pipeline's")
    stream["max_gap_s"] = 0.3
    write_manifest(copy, m)
    motionprep.open_dataset(copy, verify=True)


def test_c3_a_transform_step_disagreeing_with_the_pipeline(chain_copy):
    root = chain_copy
    m = manifest_of(root)
    assert [s["op"] for s in m["chain"]["transforms"]] == ["median", "filter"]
    steps = m["chain"]["transforms"]
    steps[0]["samples"] = 5
    write_manifest(root, m)
    refused(root, f"{root}/manifest.json: rule C3 ({RULES}): `chain.transforms[0].samples` is 5, but "
                  "`pipeline.resolved.transforms[0]` gives 3: the chain must be the pipeline's")
    steps[0]["samples"] = 3
    steps[1]["zero_phase"] = not steps[1]["zero_phase"]
    write_manifest(root, m)
    resolved_zero_phase = m["pipeline"]["resolved"]["transforms"][1]["butterworth"]["zero_phase"]
    refused(root, f"{root}/manifest.json: rule C3 ({RULES}): `chain.transforms[1].zero_phase` is "
                  f"{json.dumps(steps[1]['zero_phase'])}, but `pipeline.resolved.transforms[1]` gives "
                  f"{json.dumps(resolved_zero_phase)}: the chain must be the pipeline's")
    steps[1]["zero_phase"] = resolved_zero_phase
    m["chain"]["transforms"] = list(reversed(steps))
    write_manifest(root, m)
    refused(root, f"{root}/manifest.json: rule C3 ({RULES}): `chain.transforms` runs [\"filter\", \"median\"], but "
                  "`pipeline.resolved.transforms` gives [\"median\", \"filter\"]: the chain must be the pipeline's")
    m["chain"]["transforms"] = steps
    write_manifest(root, m)
    motionprep.open_dataset(root, verify=True)


def test_c3_agrees_with_validate(chain_copy):
    """The same forgery is refused by `motionprep validate` (`manifest.consistency`, the Swift
    rule) with the same sentence."""
    m = manifest_of(chain_copy)
    m["chain"]["transforms"][0]["samples"] = 5
    write_manifest(chain_copy, m)
    sentence = ("`chain.transforms[0].samples` is 5, but `pipeline.resolved.transforms[0]` gives 3: the chain must be "
                "the pipeline's")
    p = run_motionprep("validate", chain_copy, check=False)
    assert p.returncode != 0 and sentence in p.stdout + p.stderr, p.stdout + p.stderr
    with pytest.raises(motionprep.ConsistencyError, match=re.escape(sentence)):
        motionprep.open_dataset(chain_copy, verify=True)


def test_c3_chain_antialias_from_disagreeing_with_the_pipeline(walk_data, tmp_path):
    """`antialias_from` (absent: "recording", a dataset made before the key) must be the same in `chain` and
    `pipeline.resolved.resample`: a chain that lost the key would make the live library ask for intervals it does
    not need, or design the filter from the wrong rate. Python verify and `motionprep validate` say the same."""
    text = PIPELINE.format(output="{type: hdf5, path: verify-leading}", features="mean")
    (walk_data / "verify-leading.yaml").write_text(text.replace("antialias: false", "antialias: true"))
    run_motionprep("run", walk_data / "verify-leading.yaml", "--quiet")
    root = tmp_path / "dataset"
    shutil.copytree(walk_data / "verify-leading", root)
    m = manifest_of(root)
    assert m["chain"]["antialias_from"] == m["pipeline"]["resolved"]["resample"]["antialias_from"] == "leading"
    motionprep.open_dataset(root, verify=True)
    del m["chain"]["antialias_from"]
    write_manifest(root, m)
    sentence = ("`chain.antialias_from` is \"recording\", but `pipeline.resolved.resample.antialias_from` is "
                "\"leading\" (absent: \"recording\"): the chain must be the pipeline's")
    refused(root, f"{root}/manifest.json: rule C3 ({RULES}): {sentence}")
    p = run_motionprep("validate", root, check=False)
    assert p.returncode != 0 and sentence in p.stdout + p.stderr, p.stdout + p.stderr


# MARK: C2 in the files


def test_c2_class_names_of_an_hdf5_file(built, tmp_path):
    copy = tmp_path / "dataset"
    shutil.copytree(built["hdf5"], copy)
    with h5py.File(copy / "test.h5", "r+") as f:
        f.attrs["class_names"] = ["turn", "walk"]
    fix_checksums(copy, "test.h5")
    refused(copy, f"{copy}/test.h5: rule C2 ({RULES}): root attribute `class_names` is [\"turn\", \"walk\"], but the "
                  "manifest's `classes` is [\"walk\", \"turn\"]")


def test_c2_label_of_a_shard_sample(built, tmp_path):
    copy = tmp_path / "dataset"
    shutil.copytree(built["shards"], copy)
    shard = Shard(copy, first_shard(copy, "validation"))
    key = shard.keys()[0]
    meta = shard.read(key + ".json")
    label = json.loads(meta)["label"]
    other = "turn" if label == "walk" else "walk"          # same length: the member keeps its size
    shard.write(key + ".json", meta.replace(f'"{label}"'.encode(), f'"{other}"'.encode()))
    shard.save()
    y = int(shard.read(key + ".y.cls"))
    refused(copy, f"{copy}/{shard.path}: rule C2 ({RULES}): sample `{key}` has the label \"{other}\" in its `json`, but "
                  f"its `y.cls` {y} is class \"{label}\"")


# MARK: C4


@pytest.mark.parametrize("forgery", ["root attribute", "dataset attribute", "extra dataset", "group"])
def test_c4_hdf5_content_the_format_does_not_define(built, tmp_path, forgery):
    copy = tmp_path / "dataset"
    shutil.copytree(built["hdf5"], copy)
    with h5py.File(copy / "train.h5", "r+") as f:
        if forgery == "root attribute":
            f.attrs["note"] = "relabelled by hand"
        elif forgery == "dataset attribute":
            f["x"].attrs["units"] = "g"
        elif forgery == "extra dataset":
            f.create_dataset("extra", data=np.zeros(f["y"].shape[0], dtype="<i8"), chunks=True)
        else:
            f.create_group("more")
    fix_checksums(copy, "train.h5")
    expected = {
        "root attribute": "holds a root attribute `note` that the format does not define (docs/dataset-format.md, "
                          "\"HDF5 files\"); motionprep writes no other",
        "dataset attribute": "dataset `x` holds an attribute `units` that the format does not define "
                             "(docs/dataset-format.md, \"HDF5 files\": datasets carry no attributes)",
        "extra dataset": "holds an array `extra` that the manifest does not list",
        "group": "holds `more`, a Group, where the format has only datasets",
    }[forgery]
    refused(copy, f"{copy}/train.h5: rule C4 ({RULES}): {expected}")


# MARK: C5


def test_c5_window_copied_into_another_split(copy, storage):
    if storage == "hdf5":
        with h5py.File(copy / "train.h5", "r") as f:
            row = f["x"][5]
        with h5py.File(copy / "test.h5", "r+") as f:
            x = f["x"][...]
            x[2] = row
            f["x"][...] = x
        fix_checksums(copy, "test.h5")
        name, where, other, other_file = "test.h5", "window 2", "window 5", "train.h5"
    else:
        train, test = Shard(copy, first_shard(copy, "train")), Shard(copy, first_shard(copy, "test"))
        src, dst = train.keys()[5], test.keys()[2]
        test.write(dst + ".x.npy", train.read(src + ".x.npy"))
        test.save()
        name, other_file = test.path, train.path
        where = f"window {int(dst.split('-')[1])} (sample `{dst}`)"
        other = f"window {int(src.split('-')[1])} (sample `{src}`)"
    refused(copy, f"{copy}/{name}: rule C5 ({RULES}): {where} of split `test` has the same `x` (bit for bit) as "
                  f"{other} of {copy}/{other_file} in split `train`: a window in two splits leaks between training and "
                  "evaluation")


# MARK: C6


def test_c6_start_time_going_back_within_a_recording(copy, storage):
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
        # Two samples of one recording, next to each other in window order and in one shard, swap
        # their `json` members (same length, same label).
        found = None
        for f in manifest_of(copy)["splits"]["train"]["files"]:
            shard = Shard(copy, f["path"])
            raw = {k: shard.read(k + ".json") for k in shard.keys()}
            meta = {k: json.loads(v) for k, v in raw.items()}
            by_number = {int(k.split("-")[1]): k for k in meta}
            for n, k in sorted(by_number.items()):
                k2 = by_number.get(n + 1)
                if k2 and meta[k]["recording"] == meta[k2]["recording"] and meta[k]["label"] == meta[k2]["label"] \
                        and len(raw[k]) == len(raw[k2]):
                    found = (shard, k, k2, n, raw[k], raw[k2])
                    break
            if found:
                break
        shard, k, k2, n, a, b = found
        shard.write(k + ".json", b)
        shard.write(k2 + ".json", a)
        shard.save()
        recording = json.loads(a)["recording"]
        name, where, previous = shard.path, f"window {n + 1} (sample `{k2}`)", f"window {n} (sample `{k}`)"
        before, after = json.loads(b)["start_time_s"], json.loads(a)["start_time_s"]
    refused(copy, f"{copy}/{name}: rule C6 ({RULES}): `start_time_s` goes back within recording `{recording}`: {where} "
                  f"starts at {after!r} s, but {previous}, the window before it in that recording, starts at {before!r} s; "
                  "each window of a recording must start later than the one before it")
