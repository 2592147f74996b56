"""`motionprep validate DATASET_DIR` against datasets edited with h5py, as a user would break them:
a NaN written into `x` (checksums fixed up so only the NaN check can fail), a subject moved into a
second split, and a JUnit report that a stock XML parser reads."""
import hashlib
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import motionprep

PIPELINE = """\
version: 1
name: validate-interop
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {rate_hz: 50, max_gap_s: 0.2, antialias: false}
window: {length_samples: 128, stride_samples: 64}
labels: {from: rows, policy: majority, min_fraction: 0.8, map: {W: walk, T: turn}, classes: [walk, turn]}
features: [mean, std]
split: {seed: 42, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
"""


@pytest.fixture(scope="module")
def dataset(walk_data):
    (walk_data / "validate.yaml").write_text(PIPELINE)
    motionprep("run", walk_data / "validate.yaml", "--quiet")
    return walk_data / "out"


@pytest.fixture
def copy(dataset, tmp_path):
    target = tmp_path / "dataset"
    shutil.copytree(dataset, target)
    return target


def fix_checksums(root, name):
    """Rewrites the size and SHA-256 of `name` in manifest.json and SHA256SUMS."""
    data = (root / name).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    manifest = json.loads((root / "manifest.json").read_text())
    for split in manifest["splits"].values():
        for f in split["files"]:
            if f["path"] == name:
                f["sha256"], f["bytes"] = digest, len(data)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    lines = [f"{digest}  {name}" if line.endswith("  " + name) else line
             for line in (root / "SHA256SUMS").read_text().splitlines()]
    (root / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def test_clean_dataset_passes(dataset):
    proc = motionprep("validate", dataset)
    assert "ok:" in proc.stdout and "MB/s" in proc.stdout


def test_nan_written_by_h5py_is_caught(copy):
    with h5py.File(copy / "test.h5", "r+") as f:
        x = f["x"][...]
        x[2, 10, 0] = np.nan
        f["x"][...] = x
    fix_checksums(copy, "test.h5")
    proc = motionprep("validate", copy, check=False)
    assert proc.returncode == 1, proc.stdout
    failures = [line for line in proc.stdout.splitlines() if ": values.finite: " in line]
    assert failures == [f"{copy}/test.h5: values.finite: `x` holds 1 NaN or infinite value(s); "
                        "first: nan at window 2, time step 10, channel `acc_x`"]
    checks = json.loads(motionprep("validate", copy, "--format", "json", check=False).stdout)["checks"]
    assert [c["id"] for c in checks if c["status"] == "failed"] == ["values.finite"]


def test_subject_moved_into_second_split_is_caught(copy):
    with h5py.File(copy / "train.h5", "r") as f:
        leaked = int(f["subject_index"][0])
        name = f.attrs["subject_names"][leaked]
    with h5py.File(copy / "validation.h5", "r+") as f:
        s = f["subject_index"][...]
        s[-3:] = leaked
        f["subject_index"][...] = s
    fix_checksums(copy, "validation.h5")
    proc = motionprep("validate", copy, check=False)
    assert proc.returncode == 1
    assert (f"{copy}/validation.h5: splits.disjoint_subjects: subject `{name}` has windows in split `train` "
            "(train.h5) and in split `validation`") in proc.stdout


def test_junit_report_is_read_by_elementtree(copy):
    (copy / "test.h5").unlink()
    proc = motionprep("validate", copy, "--format", "junit", check=False)
    assert proc.returncode == 1
    suite = ET.fromstring(proc.stdout)
    assert suite.tag == "testsuite" and suite.get("name") == "motionprep validate"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert int(suite.get("tests")) == len(cases)
    assert int(suite.get("failures")) == sum(1 for c in cases.values() if c.find("failure") is not None)
    assert "test.h5" in cases["files.exist"].find("failure").get("message")
    assert cases["files.sha256"].find("failure") is None


def report_lines(proc):
    """The report without its timing (the summary's seconds and MB/s)."""
    return [line.split("; read ")[0] for line in proc.stdout.splitlines()]


def test_arrays_rewritten_by_h5py_with_other_filters_still_validate(dataset, copy):
    """validate decodes chunks itself only for motionprep's layout (whole-row chunks, shuffle →
    deflate → fletcher32); anything else h5py can write and libhdf5 can read goes through H5Dread,
    with the same report."""
    layouts = {
        "x": dict(chunks=True, compression="gzip", fletcher32=True),            # no shuffle
        "y": dict(chunks=(3,)),                                                # chunked, no filters
        "subject_index": dict(chunks=(2,), compression="gzip", compression_opts=1),   # deflate only
        "recording_index": dict(chunks=(5,), shuffle=True, compression="gzip"),  # no checksum
        "start_time_s": dict(chunks=(4,), compression="gzip", shuffle=True, fletcher32=True,
                             compression_opts=9),                              # motionprep's, by zlib
        "features": dict(chunks=(7, 2), shuffle=True, compression="gzip", fletcher32=True),  # rows cut
    }
    for name in ("train.h5", "test.h5"):
        with h5py.File(copy / name, "r+") as f:
            for array, options in layouts.items():
                data, attrs = f[array][...], dict(f[array].attrs)
                del f[array]
                f.create_dataset(array, data=data, **options)
                for key, value in attrs.items():
                    f[array].attrs[key] = value
        fix_checksums(copy, name)
    with h5py.File(copy / "test.h5", "r") as f:
        assert f["x"].shuffle is False and f["subject_index"].chunks == (2,)
    for jobs in ("1", "2"):
        proc = motionprep("validate", copy, "--jobs", jobs)
        assert report_lines(proc) == [line.replace(str(dataset), str(copy))
                                       for line in report_lines(motionprep("validate", dataset))]


def test_corrupted_chunk_is_named_by_file_dataset_and_rows(copy):
    with h5py.File(copy / "test.h5", "r") as f:
        d = f["x"]
        rows, k = d.shape[0], d.chunks[0]
        info = d.id.get_chunk_info_by_coord((k, 0, 0))
    assert rows > k
    with open(copy / "test.h5", "r+b") as fh:
        fh.seek(info.byte_offset + info.size // 2)
        b = fh.read(1)
        fh.seek(info.byte_offset + info.size // 2)
        fh.write(bytes([b[0] ^ 0x10]))
    fix_checksums(copy, "test.h5")
    proc = motionprep("validate", copy, check=False)
    assert proc.returncode == 1
    failures = [line for line in proc.stdout.splitlines() if ": files.readable: " in line]
    assert len(failures) == 1, proc.stdout
    assert failures[0].startswith(
        f"{copy}/test.h5: files.readable: cannot read `x`: cannot read rows 0..<{rows} of dataset `x` in "
        f"`{copy}/test.h5`: data error detected by Fletcher32 checksum in the chunk at rows {k}..<{2 * k} (stored 0x"), failures
    checks = json.loads(motionprep("validate", copy, "--format", "json", check=False).stdout)["checks"]
    assert [c["id"] for c in checks if c["status"] == "failed"] == ["files.readable"]
