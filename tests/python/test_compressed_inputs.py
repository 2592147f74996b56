"""Compressed inputs (issue #27 point 1; docs/inputs.md, "Compressed files"), through the binary:

- the same recordings written plain and gzip-, zstd-, xz- and bzip2-compressed (by Python's
  `gzip`, `zstandard`, `lzma` and `bz2`), and gzip as several members (`cat a.gz b.gz`), give the
  same dataset: every HDF5 array equal (h5py), the files byte for byte, and the manifest equal but
  for the inputs' paths and hashes and the pipeline's text;
- the manifest's `inputs` hashes each file as it is on disk (hashlib.sha256 of the compressed file);
- an error in the decompressed text names its line and column;
- a truncated or damaged stream fails the run (65) naming the file and a byte offset, never a
  shorter dataset; a binary file is refused as "binary, not text", never printed as a header;
- an intervals label file may be compressed;
- `init` drafts a pipeline for a folder of .csv.gz files that gives the plain folder's dataset,
  and `inspect` describes a compressed file as the plain one.
"""
import bz2
import gzip
import hashlib
import io
import json
import lzma
import shutil
import tarfile
import zipfile
from pathlib import Path

import h5py
import numpy as np
import pytest
import zstandard

from conftest import motionprep


def zstd(data: bytes) -> bytes:
    # As the `zstd` tool writes: with the content checksum.
    return zstandard.ZstdCompressor(write_checksum=True).compress(data)


def gzip_members(data: bytes) -> bytes:
    """Three gzip members, cut at arbitrary bytes (mid-line), one after the other."""
    a, b = len(data) // 3, 2 * len(data) // 3 + 7
    return gzip.compress(data[:a]) + gzip.compress(data[a:b], mtime=0) + gzip.compress(data[b:], compresslevel=1)


COMPRESS = {"gz": gzip.compress, "zst": zstd, "xz": lzma.compress, "bz2": bz2.compress}
VARIANTS = {**{k: (k, f) for k, f in COMPRESS.items()}, "gz-members": ("gz", gzip_members)}

PIPELINE = """\
version: 1
name: c
inputs:
  - type: motioncollector
    paths: ["DATA/**/*.csv*"]
    subject: "{dir}"
    sensors: [A, G]
resample: {rate_hz: 50, max_gap_s: 0.2, antialias: true}
window: {length_s: 2.56, stride_s: 1.28}
labels: LABELS
features: [mean, std]
split: {by: subject, seed: 5, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: OUT}
"""
ROWS = "{from: rows, policy: majority, min_fraction: 0.5, map: {W: walk, T: turn}, classes: [walk, turn]}"
INTERVALS = "{from: intervals, path: INTERVALS, policy: majority, min_fraction: 0.5, classes: [walk, run]}"

SPLITS = ("train", "validation", "test")


def write_pipeline(root: Path, name: str, data: str, out: str, labels: str = ROWS) -> Path:
    p = root / f"{name}.yaml"
    p.write_text(PIPELINE.replace("DATA", data).replace("OUT", out).replace("LABELS", labels))
    return p


def compress_tree(src: Path, dst: Path, suffix: str, compress) -> None:
    for f in sorted(src.glob("**/*.csv")):
        target = dst / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        (target.parent / (target.name + "." + suffix)).write_bytes(compress(f.read_bytes()))


def arrays(folder: Path) -> dict:
    out = {}
    for split in SPLITS:
        with h5py.File(folder / f"{split}.h5") as f:
            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    out[f"{split}/{name}"] = obj[()]
            f.visititems(visit)
    return out


def comparable(manifest: dict) -> dict:
    """The manifest without what names or hashes the input files and the pipeline text."""
    m = dict(manifest)
    m.pop("inputs")
    m.pop("pipeline")
    return m


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("compressed")
    motionprep("synth", "--out", root / "plain", "--subjects", 4, "--recordings", 2, "--minutes", 0.5, "--seed", 8)
    motionprep("run", write_pipeline(root, "plain", "plain", "out-plain"), "--quiet")
    for variant, (suffix, compress) in VARIANTS.items():
        compress_tree(root / "plain", root / variant, suffix, compress)
        motionprep("run", write_pipeline(root, variant, variant, f"out-{variant}"), "--quiet")
    return root


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_dataset_is_the_plain_files_one(work, variant):
    plain, packed = work / "out-plain", work / f"out-{variant}"
    a, b = arrays(plain), arrays(packed)
    assert sorted(a) == sorted(b) and len(a) > 0
    for key in a:
        assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key
    for split in SPLITS:
        assert (plain / f"{split}.h5").read_bytes() == (packed / f"{split}.h5").read_bytes(), split
    ma = json.loads((plain / "manifest.json").read_text())
    mb = json.loads((packed / "manifest.json").read_text())
    # Recordings are named without the compression suffix (`subject01/rec-01`), as for the plain
    # files: the manifests' recordings, subjects and counts are the same.
    assert comparable(ma) == comparable(mb)
    assert ".csv" not in json.dumps(mb["recordings"])
    assert motionprep("validate", packed).returncode == 0


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_provenance_hashes_the_compressed_files(work, variant):
    manifest = json.loads((work / f"out-{variant}" / "manifest.json").read_text())
    files = sorted((work / variant).glob("**/*.csv.*"))
    assert len(files) == 8
    entries = {e["path"]: e for e in manifest["inputs"] if e["role"] == "recording"}
    assert sorted(entries) == sorted(str(f.relative_to(work)) for f in files)
    for f in files:
        e = entries[str(f.relative_to(work))]
        data = f.read_bytes()
        assert e["sha256"] == hashlib.sha256(data).hexdigest() and e["bytes"] == len(data), f
    # `--resume` checks the files as they are on disk: the finished run resumes with nothing to redo.
    p = motionprep("run", work / f"{variant}.yaml", "--quiet", "--resume", check=False)
    assert p.returncode == 0, p.stderr


def one_recording(tmp_path: Path, content: bytes, name: str = "rec-01.csv.gz", labels: str = ROWS):
    (tmp_path / "d" / "s1").mkdir(parents=True, exist_ok=True)
    path = tmp_path / "d" / "s1" / name
    path.write_bytes(content)
    pipe = tmp_path / "p.yaml"
    pipe.write_text(PIPELINE.replace("DATA", "d").replace("OUT", "out").replace("LABELS", labels)
                    .replace("split: {by: subject, seed: 5, fractions: {train: 0.5, validation: 0.25, test: 0.25}}",
                             "split: {by: recording, seed: 5, fractions: {train: 1}}"))
    return path, motionprep("run", pipe, "--quiet", cwd=tmp_path, check=False)


def mc_text(work: Path) -> bytes:
    return (work / "plain" / "subject01" / "rec-01.csv").read_bytes()


@pytest.mark.parametrize("fmt", list(COMPRESS))
def test_an_error_names_the_line_of_the_decompressed_text(work, tmp_path, fmt):
    lines = mc_text(work).split(b"\n")
    bad = 3001
    lines[bad - 1] = b"A,W,1.5,0.25,oops,0.5"
    path, p = one_recording(tmp_path, COMPRESS[fmt](b"\n".join(lines)))
    assert p.returncode == 65, p.stderr
    assert f"d/s1/rec-01.csv.gz:{bad}:14: error: `oops` is not a number" in p.stderr, p.stderr
    assert not (tmp_path / "out" / "manifest.json").exists()


@pytest.mark.parametrize("fmt", list(COMPRESS))
def test_a_truncated_stream_fails_with_the_byte_offset(work, tmp_path, fmt):
    packed = COMPRESS[fmt](mc_text(work))
    for cut in (len(packed) // 2, len(packed) - 1):
        path, p = one_recording(tmp_path, packed[:cut])
        assert p.returncode == 65, p.stderr
        # The file, and where decoding stopped: the end of the cut file, or (a block cut in two
        # fails its check first) a byte within it.
        assert f"d/s1/rec-01.csv.gz: error: " in p.stderr, p.stderr
        fmt_name = {"gz": "gzip", "zst": "zstd", "xz": "xz", "bz2": "bzip2"}[fmt]
        assert f"{fmt_name} data" in p.stderr and "byte " in p.stderr, p.stderr
        if "truncated" in p.stderr:
            assert f"the file ends at byte {cut} " in p.stderr, p.stderr
        assert not (tmp_path / "out" / "manifest.json").exists()


@pytest.mark.parametrize("fmt", list(COMPRESS))
def test_a_corrupt_stream_fails_with_the_byte_offset(work, tmp_path, fmt):
    packed = bytearray(COMPRESS[fmt](mc_text(work)))
    for at in (len(packed) // 3, len(packed) // 2, len(packed) - 3):
        bad = bytearray(packed)
        bad[at] ^= 0x5A
        path, p = one_recording(tmp_path, bytes(bad))
        assert p.returncode == 65, (at, p.stderr)
        fmt_name = {"gz": "gzip", "zst": "zstd", "xz": "xz", "bz2": "bzip2"}[fmt]
        # Reported as the damage (at its byte offset), even when the garbage it decoded to fails
        # to parse first.
        assert "d/s1/rec-01.csv.gz: error: " in p.stderr and f"{fmt_name} data" in p.stderr, (at, p.stderr)
        offset = int(p.stderr.split(" at byte ")[1].split(":")[0]) if "corrupt" in p.stderr \
            else int(p.stderr.split("the file ends at byte ")[1].split(" ")[0])
        assert 0 <= offset <= len(packed), p.stderr


def test_damage_is_reported_rather_than_the_garbage_it_decodes_to(work, tmp_path):
    """A stored gzip block (level 0): a flipped byte is text that fails to parse on line 11, long
    before the CRC at the member's end notices; the damage is the error."""
    text = mc_text(work)
    packed = bytearray(gzip.compress(text, compresslevel=0, mtime=0))
    lines = text.split(b"\n")
    start = packed.index(lines[0])
    at = start + sum(len(l) + 1 for l in lines[:10])  # the first byte of line 11
    packed[at] = ord("x")
    path, p = one_recording(tmp_path, bytes(packed))
    assert p.returncode == 65, p.stderr
    assert "d/s1/rec-01.csv.gz: error: corrupt gzip data at byte" in p.stderr and "incorrect data check" in p.stderr, p.stderr
    assert ":11:" not in p.stderr, p.stderr


def test_trailing_bytes_after_the_stream_are_refused(work, tmp_path):
    packed = gzip.compress(mc_text(work))
    path, p = one_recording(tmp_path, packed + b"\0" * 512)
    assert p.returncode == 65 and f"from byte {len(packed)} are not gzip data" in p.stderr, p.stderr


def test_binary_files_are_refused_as_binary(work, tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("rec-01.csv", mc_text(work))
    path, p = one_recording(tmp_path, buf.getvalue(), name="rec-01.csv")
    assert p.returncode == 65, p.stderr
    assert "d/s1/rec-01.csv: error: binary, not text: its first bytes are 50 4b 03 04" in p.stderr, p.stderr
    assert "a zip archive" in p.stderr and "MotionCollector header" not in p.stderr, p.stderr
    # Unknown binary: no magic, mostly not text.
    rng = np.random.default_rng(3)
    blob = bytes(rng.integers(0, 256, 20000, dtype=np.uint8))
    path.unlink()
    path, p = one_recording(tmp_path, blob, name="rec-01.csv")
    assert p.returncode == 65 and "binary, not text" in p.stderr and "MotionCollector header" not in p.stderr, p.stderr
    assert blob[:4].hex(" ") in p.stderr, p.stderr
    # Binary inside a compressed file (a .tar.gz), said as such.
    path.unlink()
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as t:
        info = tarfile.TarInfo("rec-01.csv")
        info.size = len(mc_text(work))
        t.addfile(info, io.BytesIO(mc_text(work)))
    path, p = one_recording(tmp_path, gzip.compress(tar.getvalue()), name="rec-01.csv.gz")
    assert p.returncode == 65 and "binary, not text, once gzip-decompressed" in p.stderr and "a tar archive" in p.stderr, p.stderr


def test_a_compressed_intervals_file(work, tmp_path):
    names = sorted(str(p.relative_to(work / "plain").with_suffix("")) for p in (work / "plain").glob("**/*.csv"))
    text = ("recording,start_s,end_s,label\n" + "".join(f"{n},0,12,walk\n{n},12,25,run\n" for n in names)).encode()
    (work / "intervals.csv").write_bytes(text)
    (work / "intervals.csv.xz").write_bytes(lzma.compress(text))
    plain = work / "iv-plain.yaml"
    plain.write_text(PIPELINE.replace("DATA", "plain").replace("OUT", "out-iv-plain")
                     .replace("LABELS", INTERVALS.replace("INTERVALS", "intervals.csv")))
    packed = work / "iv-packed.yaml"
    packed.write_text(PIPELINE.replace("DATA", "gz").replace("OUT", "out-iv-packed")
                      .replace("LABELS", INTERVALS.replace("INTERVALS", "intervals.csv.xz")))
    motionprep("run", plain, "--quiet")
    motionprep("run", packed, "--quiet")
    a, b = arrays(work / "out-iv-plain"), arrays(work / "out-iv-packed")
    assert sorted(a) == sorted(b)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    manifest = json.loads((work / "out-iv-packed" / "manifest.json").read_text())
    label_files = [e for e in manifest["inputs"] if e["role"] == "labels"]
    packed_bytes = (work / "intervals.csv.xz").read_bytes()
    assert label_files == [{"path": "intervals.csv.xz", "bytes": len(packed_bytes),
                            "sha256": hashlib.sha256(packed_bytes).hexdigest(), "role": "labels"}]
    assert sum(manifest["splits"][s]["num_windows"] for s in manifest["splits"]) > 0


def test_init_on_a_folder_of_compressed_csvs(work, tmp_path):
    shutil.copytree(work / "plain", tmp_path / "plain")
    shutil.copytree(work / "gz", tmp_path / "data")
    p = motionprep("init", "data", "-o", "packed.yaml", cwd=tmp_path)
    yaml = (tmp_path / "packed.yaml").read_text()
    assert '  - type: motioncollector\n    paths: ["data/**/*.csv.gz"]\n' in yaml, yaml
    assert "rec-01.csv.gz" in p.stdout and "motioncollector" in p.stdout, p.stdout
    motionprep("init", "plain", "-o", "plain.yaml", cwd=tmp_path)
    for name in ("packed", "plain"):
        assert motionprep("validate", f"{name}.yaml", cwd=tmp_path).returncode == 0
        motionprep("run", f"{name}.yaml", "--quiet", cwd=tmp_path)
    a, b = arrays(tmp_path / "build" / "plain"), arrays(tmp_path / "build" / "packed")
    assert sorted(a) == sorted(b) and len(a) > 0
    for key in a:
        assert np.array_equal(a[key], b[key]), key


@pytest.mark.parametrize("app,fmt", [("sensorlogger", "gz"), ("phyphox", "xz"), ("androsensor", "bz2")])
def test_phone_exports_compressed_file_by_file(tmp_path, app, fmt):
    """A phone app's export folder with every file compressed (`Accelerometer.csv.gz`): init
    drafts the app's preset, and the dataset is the plain export's."""
    motionprep("synth", "--format", app, "--out", tmp_path / "plain", "--subjects", 2, "--minutes", 0.3, "--seed", 2)
    shutil.copytree(tmp_path / "plain", tmp_path / "packed", ignore=shutil.ignore_patterns("*.csv"))
    compress_tree(tmp_path / "plain", tmp_path / "packed", fmt, COMPRESS[fmt])
    assert not list((tmp_path / "packed").glob("**/*.csv"))
    for name in ("plain", "packed"):
        motionprep("init", name, "-o", f"{name}.yaml", cwd=tmp_path)
        yaml = (tmp_path / f"{name}.yaml").read_text()
        assert f"  - type: {app}\n" in yaml, yaml
        motionprep("run", f"{name}.yaml", "--quiet", cwd=tmp_path)
    a, b = arrays(tmp_path / "build" / "plain"), arrays(tmp_path / "build" / "packed")
    assert sorted(a) == sorted(b) and len(a) > 0
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    manifest = json.loads((tmp_path / "build" / "packed" / "manifest.json").read_text())
    assert all(e["path"].endswith("." + fmt) for e in manifest["inputs"] if e["role"] == "recording")


@pytest.mark.parametrize("fmt", ["gz", "zst"])
def test_inspect_reads_a_compressed_file_as_the_plain_one(work, fmt):
    plain = work / "plain" / "subject01" / "rec-01.csv"
    packed = work / fmt / "subject01" / f"rec-01.csv.{fmt}"
    a = json.loads(motionprep("inspect", plain, "--json").stdout)
    b = json.loads(motionprep("inspect", packed, "--json").stdout)

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("files", "path")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    assert strip(a) == strip(b)
    # A wide csv too: through the same guess.
    csv = work / "wide.csv"
    csv.write_text("time,x,y,z\n" + "".join(f"{i / 50},{i % 7},{-i % 5},1\n" for i in range(500)))
    (work / f"wide.csv.{fmt}").write_bytes(COMPRESS[fmt](csv.read_bytes()))
    a = json.loads(motionprep("inspect", csv, "--json").stdout)
    b = json.loads(motionprep("inspect", work / f"wide.csv.{fmt}", "--json").stdout)
    # The input entry to paste names the file as it is: the compressed one.
    assert b.pop("input") == a.pop("input").replace("wide.csv", f"wide.csv.{fmt}")
    assert strip(a) == strip(b)


@pytest.mark.parametrize("variant", ["gz", "bz2"])
def test_apply_reads_a_compressed_recording_as_the_plain_one(work, tmp_path, variant):
    suffix = VARIANTS[variant][0]
    motionprep("apply", work / "out-plain", work / "plain" / "subject02" / "rec-02.csv", "--out", tmp_path / "a", "--quiet")
    motionprep("apply", work / "out-plain", work / variant / "subject02" / f"rec-02.csv.{suffix}", "--out", tmp_path / "b", "--quiet")
    assert (tmp_path / "a" / "windows.h5").read_bytes() == (tmp_path / "b" / "windows.h5").read_bytes()


def test_init_on_thousands_of_small_compressed_files(tmp_path):
    """As test_init_names' 3000 small files, gzip-compressed: each is measured by decompressing it
    up to init's whole-read limit and read whole, not streamed with the block statistics (which
    took 37 times longer on 300 files)."""
    import subprocess
    import time
    from conftest import BIN
    data = tmp_path / "data"
    body = ("timestamp_ms,x,y,z\n" + "".join(f"{i * 20},0.1,0.2,0.3\n" for i in range(20))).encode()
    for s in range(60):
        d = data / f"subject{s:03d}"
        d.mkdir(parents=True)
        for r in range(50):
            (d / f"rec-{r:03d}.csv.gz").write_bytes(gzip.compress(body, mtime=0))
    start = time.monotonic()
    p = subprocess.run([BIN, "init", "data", "-o", "p.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    assert p.returncode == 0, p.stderr
    assert "1 input(s) over 3000 file(s)" in p.stdout, p.stdout[-500:]
    assert took < 60
    yaml = (tmp_path / "p.yaml").read_text()
    assert yaml.count("  - type: csv") == 1 and 'paths: ["data/**/*.csv.gz"]' in yaml, yaml
