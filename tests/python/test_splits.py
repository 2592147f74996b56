"""Splits one can trust (docs/pipeline.md, "Splits and folds"): folds dealt within train by a
second hash, `leave_one_out`, `allocation: exact`, and the warnings that go with them. Every
assignment is recomputed independently in Python (tests/python/reference.py) from the HDF5 files
h5py reads back."""
import h5py
import numpy as np
import pytest

import reference as ref
from conftest import motionprep

PIPELINE = """\
version: 1
name: splits
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
    sensors: [A]
resample: {{rate_hz: 25, max_gap_s: 0.3}}
window: {{length_s: 2.56, stride_s: 2.56}}
labels: {{map: {{W: walk, T: turn}}, classes: {classes}}}
split: {split}
output: {{type: hdf5, path: {out}}}
"""


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    root = tmp_path_factory.mktemp("splits")
    motionprep("synth", "--out", root / "data", "--subjects", 12, "--recordings", 1, "--minutes", 0.25, "--seed", 9,
               "--sensors", "A")
    return root


def run(root, name, split, classes="[walk, turn]", check=True):
    (root / f"{name}.yaml").write_text(PIPELINE.format(split=split, out=name, classes=classes))
    return motionprep("run", root / f"{name}.yaml", "--quiet", check=check)


def read(root, name):
    """subject name → (split, set of fold_index values) over all windows."""
    out = {}
    for split in ("train", "validation", "test"):
        with h5py.File(root / name / f"{split}.h5", "r") as f:
            subjects = list(f.attrs["subject_names"])
            folds = f["fold_index"][...] if "fold_index" in f else np.full(f["y"].shape, -2)
            for s, fold in zip(f["subject_index"][...], folds):
                seen = out.setdefault(subjects[s], (split, set()))
                assert seen[0] == split
                seen[1].add(int(fold))
    return out


def subjects(root):
    return sorted(p.name for p in (root / "data").iterdir() if not p.name.startswith("."))


def test_folds_are_dealt_within_train_and_every_fold_has_train_subjects(many):
    run(many, "k5", "{seed: 3, fractions: {train: 0.6, validation: 0.2, test: 0.2}, folds: 5}")
    got = read(many, "k5")
    train = [s for s in got if got[s][0] == "train"]
    assert sorted(train) == sorted(s for s in subjects(many) if ref.split_of(3, s, (0.6, 0.2, 0.2)) == "train")
    expected = ref.folds_of(3, train, 5)
    for s, (split, folds) in got.items():
        assert folds == ({expected[s]} if split == "train" else {-1}), s
    # The v1 rule gave train only some folds and made the test set one fold: now train holds
    # every fold, balanced in subjects (sizes differ by at most one).
    sizes = np.bincount([expected[s] for s in train], minlength=5)
    assert len(train) >= 5 and sizes.min() >= 1 and sizes.max() - sizes.min() <= 1
    motionprep("validate", many / "k5")


def test_fold_assignment_does_not_follow_the_split_draw(many):
    """Changing the fractions moves subjects between splits but the order in which train
    subjects are dealt comes from the second hash alone."""
    run(many, "k3a", "{seed: 3, fractions: {train: 0.8, validation: 0.1, test: 0.1}, folds: 3}")
    got = read(many, "k3a")
    train = [s for s in got if got[s][0] == "train"]
    expected = ref.folds_of(3, train, 3)
    assert {s: min(got[s][1]) for s in train} == expected


def test_leave_one_out_gives_every_train_subject_its_own_fold(many):
    run(many, "loo", "{seed: 5, fractions: {train: 0.5, validation: 0.25, test: 0.25}, leave_one_out: true}")
    got = read(many, "loo")
    train = [s for s in got if got[s][0] == "train"]
    expected = ref.folds_of(5, train)
    assert sorted(expected.values()) == list(range(len(train)))
    for s, (split, folds) in got.items():
        assert folds == ({expected[s]} if split == "train" else {-1})
    import json
    manifest = json.loads((many / "loo/manifest.json").read_text())
    assert manifest["split_policy"]["folds"] == len(train) and manifest["split_policy"]["leave_one_out"] is True
    motionprep("validate", many / "loo")


@pytest.mark.parametrize("seed", range(8))
def test_exact_allocation_of_four_subjects_is_always_two_one_one(tmp_path, seed):
    motionprep("synth", "--out", tmp_path / "data", "--subjects", 4, "--recordings", 1, "--minutes", 0.25,
               "--seed", 4, "--sensors", "A")
    p = run(tmp_path, "exact", f"{{seed: {seed}, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}, allocation: exact}}")
    got = read(tmp_path, "exact")
    counts = {n: sum(1 for s in got.values() if s[0] == n) for n in ("train", "validation", "test")}
    assert counts == {"train": 2, "validation": 1, "test": 1}
    assert {s: v[0] for s, v in got.items()} == ref.exact_splits(seed, list(got), (0.5, 0.25, 0.25))
    assert "is empty" not in p.stderr


def test_exact_allocation_matches_the_reference_with_assign(many):
    run(many, "exact12", "{seed: 11, fractions: {train: 0.7, validation: 0.15, test: 0.15}, allocation: exact, "
                         "assign: {test: [subject03]}}")
    got = read(many, "exact12")
    want = ref.exact_splits(11, subjects(many), (0.7, 0.15, 0.15), {"subject03": "test"})
    assert {s: v[0] for s, v in got.items()} == want
    # 11 free subjects: 7.7 / 1.65 / 1.65 → 7 + 1 + 1, two left by largest remainder (0.7, then 0.65 train-first order).
    counts = [sum(1 for s in want if want[s] == n and s != "subject03") for n in ("train", "validation", "test")]
    assert counts == [8, 2, 1]


def test_hash_allocation_with_few_subjects_warns_and_says_how_to_fix(tmp_path):
    motionprep("synth", "--out", tmp_path / "data", "--subjects", 2, "--recordings", 1, "--minutes", 0.25,
               "--seed", 4, "--sensors", "A")
    p = run(tmp_path, "few", "{seed: 1, fractions: {train: 0.5, validation: 0.25, test: 0.25}}")
    assert "allocation: exact" in p.stderr


def test_a_listed_class_with_no_window_is_warned_about(many):
    p = run(many, "noclass", "{seed: 3}", classes="[walk, turn, run]")
    assert "warning: class `run` got no window in any split" in p.stderr


def test_more_folds_than_train_subjects_warns(many):
    p = run(many, "k50", "{seed: 3, folds: 50}")
    assert "fold(s) are empty" in p.stderr


@pytest.mark.parametrize("split, needle", [
    ("{folds: 3, leave_one_out: true}", "cannot go with `split.folds`"),
    ("{allocation: even}", "split.allocation"),
    ("{leave_one_out: 3}", "split.leave_one_out"),
])
def test_bad_split_options_are_pipeline_errors(tmp_path, split, needle):
    (tmp_path / "data").mkdir()
    (tmp_path / "bad.yaml").write_text(PIPELINE.format(split=split, out="out", classes="[walk, turn]"))
    p = motionprep("validate", tmp_path / "bad.yaml", check=False)
    assert p.returncode == 78, p.stderr
    assert needle in p.stderr and "bad.yaml:" in p.stderr
