"""`motionprep validate` cannot be fooled by the container format (docs/hardening.md, "Data safety:
validate and the container format"): HDF5 files crafted with h5py whose arrays live elsewhere
(external storage, external and soft links, virtual datasets) or in another layout, files the
manifest does not list, symlinks, FIFOs and sockets in the folder, and zstd bombs in place of a
shard. Every source file an HDF5 trick points to is a FIFO: if validate ever opened it, it would
hang, and the test's timeout would fail it."""
import hashlib
import json
import os
import shutil
import socket
import subprocess
import time

import h5py
import numpy as np
import pytest
import zstandard

from conftest import BIN, motionprep

PIPELINE = """\
version: 1
name: validate-container
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {rate_hz: 50, max_gap_s: 0.2, antialias: false}
window: {length_samples: 128, stride_samples: 64}
labels: {from: rows, policy: majority, min_fraction: 0.8, map: {W: walk, T: turn}, classes: [walk, turn]}
features: [mean, std]
split: {seed: 42, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: OUTPUT
"""

TIMEOUT = 10  # seconds; validate of these datasets takes well under one


@pytest.fixture(scope="module")
def hdf5_dataset(walk_data):
    (walk_data / "container-h5.yaml").write_text(PIPELINE.replace("OUTPUT", "{type: hdf5, path: out-container-h5}"))
    motionprep("run", walk_data / "container-h5.yaml", "--quiet")
    return walk_data / "out-container-h5"


@pytest.fixture(scope="module")
def shard_dataset(walk_data):
    (walk_data / "container-shards.yaml").write_text(
        PIPELINE.replace("OUTPUT", "{type: shards, path: out-container-shards, windows_per_shard: 40}"))
    motionprep("run", walk_data / "container-shards.yaml", "--quiet")
    return walk_data / "out-container-shards"


@pytest.fixture
def h5copy(hdf5_dataset, tmp_path):
    target = tmp_path / "dataset"
    shutil.copytree(hdf5_dataset, target)
    return target


@pytest.fixture
def shardcopy(shard_dataset, tmp_path):
    target = tmp_path / "dataset"
    shutil.copytree(shard_dataset, target)
    return target


def fix_checksums(root, name):
    """Rewrites the size and SHA-256 of `name` in manifest.json and SHA256SUMS (hashed in blocks:
    some files are large and sparse)."""
    h = hashlib.sha256()
    with open(root / name, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    digest, size = h.hexdigest(), (root / name).stat().st_size
    manifest = json.loads((root / "manifest.json").read_text())
    for split in manifest["splits"].values():
        for f in split["files"]:
            if f["path"] == name:
                f["sha256"], f["bytes"] = digest, size
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    lines = [f"{digest}  {name}" if line.endswith("  " + name) else line
             for line in (root / "SHA256SUMS").read_text().splitlines()]
    (root / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def validate(root, *extra):
    """Runs validate with a timeout (a hang fails the test); returns (returncode, stdout lines,
    peak RSS in MiB, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen([BIN, "validate", str(root), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"validate {root} did not finish within {TIMEOUT} s: it waited on something")
    seconds = time.monotonic() - start
    return proc.returncode, out.splitlines(), err, seconds


def peak_rss_mib(root):
    """validate's peak resident memory in MiB, measured by GNU time, and its wall seconds."""
    start = time.monotonic()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", BIN, "validate", str(root)], capture_output=True, text=True,
                          timeout=TIMEOUT)
    seconds = time.monotonic() - start
    kib = int(proc.stderr.strip().splitlines()[-1])
    return proc.returncode, proc.stdout.splitlines(), kib / 1024, seconds


def failures(lines, check):
    return [line for line in lines if f": {check}: " in line]


def rewrite(root, name, array, make):
    """Replaces `array` in `root/name` by what `make(f, array, data)` creates, then fixes the checksums."""
    with h5py.File(root / name, "r+") as f:
        data = f[array][...]
        del f[array]
        make(f, array, data)
    fix_checksums(root, name)
    return data


def test_clean_datasets_pass(hdf5_dataset, shard_dataset):
    for root in (hdf5_dataset, shard_dataset):
        rc, lines, _, _ = validate(root)
        assert rc == 0, lines


# --- HDF5: data that is not the file's own ----------------------------------------------------

def test_external_storage_fails_without_reading_the_external_file(h5copy):
    fifo = h5copy.parent / "y.bin"
    rewrite(h5copy, "test.h5", "y", lambda f, a, d: f.create_dataset(
        a, shape=d.shape, dtype=d.dtype, external=[(str(fifo), 0, d.nbytes)]))
    os.mkfifo(fifo)
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    assert failures(lines, "files.container") == [
        f"{h5copy}/test.h5: files.container: `y` keeps its data in 1 external file(s) (first: `{fifo}`), outside the "
        "file and its SHA-256; motionprep stores every array in chunks inside the file, so it is not read"], lines


def test_external_link_fails_and_is_not_followed(h5copy):
    fifo = h5copy.parent / "elsewhere.h5"
    rewrite(h5copy, "test.h5", "x", lambda f, a, d: f.__setitem__(a, h5py.ExternalLink(str(fifo), "/x")))
    os.mkfifo(fifo)
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    assert failures(lines, "files.container") == [
        f"{h5copy}/test.h5: files.container: `x` is an external link to `/x` in `{fifo}`, data outside the file and "
        "its SHA-256; it is not followed"], lines
    # The link is not reported a second time as a missing array.
    assert not [line for line in failures(lines, "arrays.shape") if "lacks the array `x`" in line]


def test_soft_link_fails_and_is_not_followed(h5copy):
    def make(f, a, d):
        f.create_dataset("x_elsewhere", data=d, chunks=True)
        f[a] = h5py.SoftLink("/x_elsewhere")
    rewrite(h5copy, "test.h5", "x", make)
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    assert failures(lines, "files.container") == [
        f"{h5copy}/test.h5: files.container: `x` is a soft link to `/x_elsewhere`, not an array; motionprep writes "
        "every array as a dataset at the root, so it is not followed"], lines
    assert [line for line in failures(lines, "arrays.shape") if "x_elsewhere" in line]


def test_virtual_dataset_fails_without_reading_its_sources(h5copy):
    fifo = h5copy.parent / "source.h5"

    def make(f, a, d):
        layout = h5py.VirtualLayout(shape=d.shape, dtype=d.dtype)
        layout[...] = h5py.VirtualSource(str(fifo), "x", shape=d.shape)
        f.create_virtual_dataset(a, layout)
    rewrite(h5copy, "test.h5", "x", make)
    os.mkfifo(fifo)
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    assert failures(lines, "files.container") == [
        f"{h5copy}/test.h5: files.container: `x` is a virtual dataset, a view of data in other files that the "
        "manifest's SHA-256 does not cover; motionprep stores every array in chunks inside the file, so it is not read"], lines


@pytest.mark.parametrize("layout", ["contiguous", "compact"])
def test_layouts_other_than_chunked_fail(h5copy, layout):
    def make(f, a, d):
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.CONTIGUOUS if layout == "contiguous" else h5py.h5d.COMPACT)
        space = h5py.h5s.create_simple(d.shape)
        dsid = h5py.h5d.create(f.id, a.encode(), h5py.h5t.STD_I64LE, space, dcpl=dcpl)
        dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, d)
    rewrite(h5copy, "test.h5", "y", make)
    with h5py.File(h5copy / "test.h5", "r") as f:
        assert f["y"].id.get_create_plist().get_layout() == getattr(h5py.h5d, layout.upper())
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    assert failures(lines, "files.container") == [
        f"{h5copy}/test.h5: files.container: `y` has {layout} storage; motionprep stores every array in chunks "
        "(chunked layout), so it is not read"], lines


def test_groups_and_extra_datasets_fail(h5copy):
    with h5py.File(h5copy / "test.h5", "r+") as f:
        f.create_group("extra").create_dataset("hidden", data=np.zeros(3))
        rows = f["y"].shape[0]
        f.create_dataset("notes", data=np.arange(rows), chunks=True)
    fix_checksums(h5copy, "test.h5")
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    assert failures(lines, "files.container") == [
        f"{h5copy}/test.h5: files.container: holds a group `extra`; motionprep writes only datasets at the root of "
        "the file, so its contents are not read"], lines
    assert failures(lines, "arrays.shape") == [
        f"{h5copy}/test.h5: arrays.shape: holds an array `notes` (shape [{rows}]) that the manifest does not list"], lines


def test_extent_far_beyond_the_manifest_is_not_read(h5copy):
    """A few bytes of HDF5 metadata can declare 10^8 windows of fill values (358 GB of `x`):
    refused from the extent, not read for hours."""
    with h5py.File(h5copy / "test.h5", "r+") as f:
        f["x"].resize(10**8, axis=0)
    fix_checksums(h5copy, "test.h5")
    assert (h5copy / "test.h5").stat().st_size < 10 << 20
    rc, lines, _, seconds = validate(h5copy)
    assert rc == 1
    manifest = json.loads((h5copy / "manifest.json").read_text())
    listed = manifest["splits"]["test"]["files"][0]["num_windows"]
    assert failures(lines, "files.container") == [
        f"{h5copy}/test.h5: files.container: `x` has {10**8} rows, far more than the {listed} windows its manifest "
        f"entry lists (at most {listed + 4096} are read); it is not read"], lines
    assert seconds < 10


# --- The folder: unlisted files, symlinks, FIFOs, sockets --------------------------------------

def test_every_unlisted_file_is_flagged_whatever_its_name(h5copy):
    for name in ["notes.txt", "TRAIN.H5", "old.TAR", "train.h5.bak", ".hidden", "sub/README.md", "sub/x.npy"]:
        (h5copy / name).parent.mkdir(exist_ok=True)
        (h5copy / name).write_text("extra")
    for name in ["README", "readme.md", "README.txt", "report.html"]:  # allowed beside a dataset
        (h5copy / name).write_text("about this dataset")
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    flagged = [line.split(": files.unlisted: ")[0] for line in failures(lines, "files.unlisted")]
    assert flagged == [f"{h5copy}/{n}" for n in [".hidden", "TRAIN.H5", "notes.txt", "old.TAR", "sub/README.md",
                                                 "sub/x.npy", "train.h5.bak"]], lines
    assert "so no checksum covers it" in failures(lines, "files.unlisted")[0]


def test_allowed_documents_alone_pass(h5copy):
    (h5copy / "README.md").write_text("about this dataset")
    (h5copy / "report.html").write_text("<html></html>")
    rc, lines, _, _ = validate(h5copy)
    assert rc == 0, lines


def test_fifo_socket_and_symlinks_in_the_folder_fail_at_once(h5copy, tmp_path):
    os.mkfifo(h5copy / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(h5copy / "sock"))
    outside = tmp_path / "outside.h5"
    outside.write_text("not part of the dataset")
    os.symlink(outside, h5copy / "link.h5")
    os.symlink(tmp_path, h5copy / "linked-folder")
    try:
        rc, lines, _, seconds = validate(h5copy)
    finally:
        sock.close()
    assert rc == 1
    assert failures(lines, "files.regular") == [
        f"{h5copy}/link.h5: files.regular: is a symbolic link; a dataset folder holds only regular files and folders, "
        "so it is neither opened nor followed",
        f"{h5copy}/linked-folder: files.regular: is a symbolic link; a dataset folder holds only regular files and "
        "folders, so it is neither opened nor followed",
        f"{h5copy}/pipe: files.regular: is a FIFO (named pipe); a dataset folder holds only regular files and folders, "
        "so it is neither opened nor followed",
        f"{h5copy}/sock: files.regular: is a socket; a dataset folder holds only regular files and folders, so it is "
        "neither opened nor followed"], lines
    assert not failures(lines, "files.unlisted"), lines


@pytest.mark.parametrize("kind", ["fifo", "socket", "directory", "symlink", "symlinked-parent"])
def test_non_regular_file_where_a_data_file_should_be(shardcopy, tmp_path, kind):
    """Point 5: a FIFO (never opened: validate would hang), a socket, a folder or a symlink at a
    listed path fails `files.exist` within seconds."""
    name = "train/train-00000.tar.zst"
    target = shardcopy / name
    real = tmp_path / "real.tar.zst"
    shutil.copy(target, real)
    sock = None
    if kind == "symlinked-parent":
        shutil.move(shardcopy / "train", tmp_path / "train")
        os.symlink(tmp_path / "train", shardcopy / "train")
    else:
        target.unlink()
        if kind == "fifo":
            os.mkfifo(target)
        elif kind == "socket":
            sock = socket.socket(socket.AF_UNIX)
            sock.bind(str(target))
        elif kind == "directory":
            target.mkdir()
        else:
            os.symlink(real, target)
    try:
        rc, lines, _, seconds = validate(shardcopy)
    finally:
        if sock:
            sock.close()
    assert rc == 1
    what = {"fifo": "is a FIFO (named pipe), not a regular file, so it is not opened",
            "socket": "is a socket, not a regular file, so it is not opened",
            "directory": "is a folder",
            "symlink": "is a symbolic link, not a regular file, so it is not opened",
            "symlinked-parent": "`train` on its path is a symbolic link, not a folder, so it is not followed"}[kind]
    assert f"{shardcopy}/{name}: files.exist: is listed in the manifest (split `train`) but {what}" in lines, lines
    assert seconds < 10


@pytest.mark.parametrize("name", ["manifest.json", "SHA256SUMS"])
def test_fifo_in_place_of_manifest_or_sums_is_not_read(h5copy, name):
    (h5copy / name).unlink()
    os.mkfifo(h5copy / name)
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    check = "manifest.parse" if name == "manifest.json" else "files.sha256sums"
    assert f"{h5copy}/{name}: {check}: is a FIFO (named pipe), not a regular file, so it is not read" in lines, lines


# --- Shards: decompression bombs -----------------------------------------------------------------

BOMB_BYTES = 2 << 30  # 2 GiB of zeros


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    """One zstd frame of 2 GiB of zeros with content size and checksum (about 100 KB), compressed
    streaming, never held in memory."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.tar.zst"
    zeros = bytes(1 << 20)
    cctx = zstandard.ZstdCompressor(level=1, write_checksum=True, write_content_size=True)
    with open(path, "wb") as fh, cctx.stream_writer(fh, size=BOMB_BYTES, closefd=False) as w:
        for _ in range(BOMB_BYTES >> 20):
            w.write(zeros)
    data = path.read_bytes()
    assert len(data) < 1 << 20
    params = zstandard.get_frame_parameters(data)
    assert params.content_size == BOMB_BYTES and params.has_checksum
    return data


def fcs_offset(frame):
    """Offset and width of the frame content size field (RFC 8878 §3.1.1.1)."""
    descriptor = frame[4]
    single_segment = bool(descriptor & 0x20)
    dict_bytes = [0, 1, 2, 4][descriptor & 3]
    width = [1 if single_segment else 0, 2, 4, 8][descriptor >> 6]
    return 5 + (0 if single_segment else 1) + dict_bytes, width


def test_bomb_that_declares_gigabytes_is_refused_before_decompressing(shardcopy, bomb):
    name = "train/train-00000.tar.zst"
    (shardcopy / name).write_bytes(bomb)
    fix_checksums(shardcopy, name)
    rc, lines, rss, seconds = peak_rss_mib(shardcopy)
    assert rc == 1
    found = failures(lines, "files.container")
    assert len(found) == 1 and found[0].startswith(
        f"{shardcopy}/{name}: files.container: shard {shardcopy}/{name} declares {BOMB_BYTES} bytes of content in its "
        "zstd frame header, more than the "), lines
    assert "its manifest entry allows; it is not decompressed (40 windows)" in found[0]
    assert rss < 200, f"peak RSS {rss:.0f} MiB"
    assert seconds < 10


def test_bomb_that_lies_about_its_size_stops_at_the_declared_size(shardcopy, bomb):
    """A frame whose header declares 64 KiB but whose blocks expand to 2 GiB: decompression
    writes into a buffer of the declared size and stops when it is full."""
    name = "train/train-00000.tar.zst"
    offset, width = fcs_offset(bomb)
    assert width in (4, 8)
    liar = bytearray(bomb)
    liar[offset:offset + width] = (64 << 10).to_bytes(width, "little")
    (shardcopy / name).write_bytes(bytes(liar))
    fix_checksums(shardcopy, name)
    rc, lines, rss, seconds = peak_rss_mib(shardcopy)
    assert rc == 1
    found = failures(lines, "files.readable")
    assert len(found) == 1 and "the zstd frame cannot be decompressed (Destination buffer is too small)" in found[0], lines
    assert rss < 200, f"peak RSS {rss:.0f} MiB"
    assert seconds < 10


def test_shard_file_longer_than_its_entry_allows_is_not_read(shardcopy):
    name = "train/train-00000.tar.zst"
    with open(shardcopy / name, "ab") as fh:
        fh.truncate(256 << 20)  # a sparse 256 MiB file: costs no disk, would cost memory if read
    fix_checksums(shardcopy, name)
    rc, lines, rss, seconds = peak_rss_mib(shardcopy)
    assert rc == 1
    found = failures(lines, "files.container")
    assert len(found) == 1 and f"is {256 << 20} bytes long, more than the " in found[0], lines
    assert rss < 150, f"peak RSS {rss:.0f} MiB"


# --- Counts: the manifest against itself ----------------------------------------------------------

def edit_manifest(root, edit):
    manifest = json.loads((root / "manifest.json").read_text())
    edit(manifest)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))


def test_file_class_counts_must_add_up_to_its_windows_even_when_unreadable(h5copy):
    def edit(m):
        entry = m["splits"]["test"]["files"][0]
        entry["class_counts"][0] += 1
        m["splits"]["test"]["class_counts"][0] += 1
    edit_manifest(h5copy, edit)
    (h5copy / "test.h5").unlink()
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    manifest = json.loads((h5copy / "manifest.json").read_text())
    entry = manifest["splits"]["test"]["files"][0]
    assert failures(lines, "counts.file") == [
        f"{h5copy}/test.h5: counts.file: the manifest lists {entry['num_windows']} windows for it, but its class "
        f"counts [{entry['class_counts'][0]}, {entry['class_counts'][1]}] add up to {sum(entry['class_counts'])}"], lines


def test_counted_recordings_must_match_the_recordings_list(h5copy):
    edit_manifest(h5copy, lambda m: m["counts"].__setitem__("recordings", m["counts"]["recordings"] + 1))
    rc, lines, _, _ = validate(h5copy)
    assert rc == 1
    manifest = json.loads((h5copy / "manifest.json").read_text())
    n = len(manifest["recordings"])
    assert failures(lines, "manifest.schema") == [
        f"{h5copy}/manifest.json: manifest.schema: `counts.recordings` is {n + 1}, but `recordings` lists {n} "
        "recording(s)"], lines

