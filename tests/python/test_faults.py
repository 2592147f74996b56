"""Faults end cleanly (issue 14, point 7; docs/hardening.md, "Data safety: faults").

- A full disk (a real, small tmpfs mounted for the test) under `run` (hdf5 and shards) and
  `merge`, wherever it fills (resume records, HDF5 chunks, shards, SHA256SUMS, manifest.json),
  gives exit 73 or 74 with one message naming the file and "No space left on device", never a
  signal (before the fix, libhdf5's clean-up at exit crashed with SIGSEGV); the partial folder
  is removed and no previous dataset is touched; `on_error: skip` never skips a recording whose
  record could not be written.
- A failed write to standard output (/dev/full, a pipe whose reader is gone) is exit 74 with
  "cannot write to standard output: …", never a silent 0 nor a death by SIGPIPE.
- `report -o` writes into a FIFO or a character device without replacing it, and refuses a
  symbolic link or a folder; `inspect --samples DIR` refuses a folder that is not empty and not
  its own, a link, and a folder inside (or holding) an input tree, and never follows links.
"""
import re
import hashlib
import os
import shutil
import signal
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import BIN, motionprep

PIPELINE = """\
version: 1
name: faults
{extra}inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
    subject: "{{dir}}"
resample: {{rate_hz: 50, max_gap_s: 0.2}}
window: {{length_s: 2.56, stride_s: 0.32}}
labels: {{map: {{W: walk, T: turn}}, min_fraction: 0.8}}
features: [mean, std]
split: {{by: subject, seed: 15, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}}}
output: {{type: {storage}, path: out{shards}}}
"""

PAGE = 4096
NOSPACE = "no space left on device"


def pipeline(storage="hdf5", extra=""):
    shards = ", windows_per_shard: 400" if storage == "shards" else ""
    return PIPELINE.format(storage=storage, shards=shards, extra=extra)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    motionprep("synth", "--out", root / "data", "--subjects", 4, "--minutes", 1.5, "--seed", 7)
    for storage in ("hdf5", "shards"):
        (root / f"{storage}.yaml").write_text(pipeline(storage))
        (root / f"{storage}-skip.yaml").write_text(pipeline(storage, extra="on_error: skip\n"))
    motionprep("run", root / "hdf5.yaml", "--quiet", "--out", root / "dataset")
    return root


class Tmpfs:
    """A real tmpfs of a given size, mounted on a folder for the test (root only)."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.mounted = False

    def mount(self, size_bytes):
        self.unmount()
        size = max(PAGE, (int(size_bytes) + PAGE - 1) // PAGE * PAGE)
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(self.path)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, f"mount of a {size}-byte tmpfs failed: {proc.stderr}"
        self.mounted = True

    def used_pages(self) -> int:
        st = os.statvfs(self.path)
        return (st.f_blocks - st.f_bfree) * st.f_frsize // PAGE

    def unmount(self):
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.path)], check=False)
            self.mounted = False


@pytest.fixture
def tmpfs(tmp_path):
    t = Tmpfs(tmp_path / "disk")
    probe = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(t.path)], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (needs root and CAP_SYS_ADMIN): {probe.stderr.strip()}")
    t.mounted = True
    yield t
    t.unmount()


def run_to(work, disk: Path, yaml="hdf5.yaml", extra_env=None, args=()):
    env = dict(os.environ, **(extra_env or {}))
    return subprocess.run([BIN, "run", str(work / yaml), "--quiet", "--jobs", "2", "--out", str(disk / "out"), *args],
                          capture_output=True, text=True, env=env, timeout=300)


def peak_pages(work, tmpfs, yaml):
    """Pages in use on the disk when the run has written everything but the manifest (the peak:
    records, data files and SHA256SUMS), measured with the `before-manifest` test hook."""
    tmpfs.mount(512 << 20)
    env = dict(os.environ, MOTIONPREP_TEST_PAUSE_AT="before-manifest")
    proc = subprocess.Popen([BIN, "run", str(work / yaml), "--quiet", "--jobs", "2", "--out", str(tmpfs.path / "out")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
        assert "paused at before-manifest" in line, line
        pages = tmpfs.used_pages()
    finally:
        proc.kill()
        proc.wait()
    return pages


def assert_clean_failure(proc, disk: Path, what: str):
    """Exit 73/74 (never a signal, never 0), one message naming a file on the disk and the
    reason, and nothing of the run left on the disk."""
    assert proc.returncode in (73, 74), f"{what}: exit {proc.returncode}\n{proc.stderr}"
    err = proc.stderr.strip()
    assert NOSPACE in err.lower(), f"{what}: {err}"
    assert str(disk) in err, f"{what}: the message names no file on the disk: {err}"
    assert re.match(r"^(motionprep|\S+?): error: ", err), err
    left = sorted(p.name for p in disk.iterdir())
    assert left == [], f"{what}: left behind {left}"


@pytest.mark.parametrize("storage", ["hdf5", "shards"])
def test_a_full_disk_fails_cleanly_wherever_it_fills(work, tmpfs, storage):
    yaml = f"{storage}.yaml"
    peak = peak_pages(work, tmpfs, yaml)
    # From early (resume records) through the data files to the last page before SHA256SUMS
    # (peak - 1: SHA256SUMS cannot be written) and the manifest (peak: it cannot be written).
    sizes = sorted({int(peak * f) for f in (0.05, 0.3, 0.55, 0.7, 0.8, 0.9, 0.95, 0.99)} | {peak - 1, peak})
    for pages in sizes:
        tmpfs.mount(pages * PAGE)
        proc = run_to(work, tmpfs.path, yaml)
        assert_clean_failure(proc, tmpfs.path, f"{storage} on {pages} pages of {peak}")
    # With room for the manifest too, the same run succeeds. Shards peak earlier than the
    # manifest: while a split's shards are written its windows are also in the spool
    # (docs/dataset-format.md, "Shards"), at most the size of the records again.
    tmpfs.mount(((2 * peak if storage == "shards" else peak) + 64) * PAGE)
    proc = run_to(work, tmpfs.path, yaml)
    assert proc.returncode == 0, proc.stderr
    assert (tmpfs.path / "out/manifest.json").is_file()


def test_the_disk_filling_at_sha256sums_and_at_the_manifest_names_them(work, tmpfs):
    peak = peak_pages(work, tmpfs, "hdf5.yaml")
    tmpfs.mount((peak - 1) * PAGE)
    proc = run_to(work, tmpfs.path)
    assert_clean_failure(proc, tmpfs.path, "SHA256SUMS")
    assert "SHA256SUMS" in proc.stderr
    tmpfs.mount(peak * PAGE)
    proc = run_to(work, tmpfs.path)
    assert_clean_failure(proc, tmpfs.path, "manifest")
    assert "manifest.json" in proc.stderr


def test_a_full_disk_keeps_the_previous_dataset(work, tmpfs):
    peak = peak_pages(work, tmpfs, "hdf5.yaml")
    # Room for the previous dataset plus most of the new run.
    previous = work / "dataset"
    size = sum(f.stat().st_size for f in previous.iterdir())
    tmpfs.mount((peak * 0.9) * PAGE + size + 64 * PAGE)
    shutil.copytree(previous, tmpfs.path / "out")
    before = {f.name: f.read_bytes() for f in (tmpfs.path / "out").iterdir()}
    proc = run_to(work, tmpfs.path)
    assert proc.returncode in (73, 74), proc.stderr
    assert NOSPACE in proc.stderr.lower(), proc.stderr
    assert sorted(p.name for p in tmpfs.path.iterdir()) == ["out"]
    assert {f.name: f.read_bytes() for f in (tmpfs.path / "out").iterdir()} == before


@pytest.mark.parametrize("storage", ["hdf5", "shards"])
def test_on_error_skip_never_skips_a_record_the_disk_refused(work, tmpfs, storage):
    peak = peak_pages(work, tmpfs, f"{storage}.yaml")
    for fraction in (0.1, 0.5, 0.8):
        tmpfs.mount(int(peak * fraction) * PAGE)
        proc = run_to(work, tmpfs.path, f"{storage}-skip.yaml")
        assert "skipped recording" not in proc.stderr, proc.stderr
        assert_clean_failure(proc, tmpfs.path, f"{storage} skip at {fraction}")


def test_merge_onto_a_full_disk_fails_cleanly(work, tmpfs, tmp_path):
    parts = []
    for i in range(2):
        part = tmp_path / f"part-{i}"
        motionprep("run", work / "hdf5.yaml", "--quiet", "--worker", f"{i}/2", "--out", part)
        parts.append(part)
    tmpfs.mount(512 << 20)
    motionprep("merge", tmpfs.path / "out", *parts, "--quiet")
    full = sum(f.stat().st_blocks * 512 for f in (tmpfs.path / "out").rglob("*") if f.is_file()) // PAGE
    for fraction in (0.3, 0.7, 0.95, 0.999):
        tmpfs.mount(int(full * fraction) * PAGE)
        proc = subprocess.run([BIN, "merge", str(tmpfs.path / "out"), *map(str, parts), "--quiet", "--jobs", "2"],
                              capture_output=True, text=True, timeout=300)
        assert_clean_failure(proc, tmpfs.path, f"merge at {fraction}")


def test_report_onto_a_full_disk_keeps_the_previous_page(work, tmpfs):
    tmpfs.mount(8 * PAGE)
    page = tmpfs.path / "report.html"
    page.write_text("previous page\n")
    proc = motionprep("report", work / "dataset", "-o", page, "--quiet", "--force", check=False)
    assert proc.returncode == 74, proc.stderr
    assert NOSPACE in proc.stderr.lower() and str(page) in proc.stderr
    assert page.read_text() == "previous page\n"
    assert sorted(p.name for p in tmpfs.path.iterdir()) == ["report.html"]


def test_synth_onto_a_full_disk_fails_cleanly(tmpfs):
    tmpfs.mount(64 * PAGE)
    proc = motionprep("synth", "--out", tmpfs.path / "data", "--subjects", 2, "--minutes", 1, check=False)
    assert proc.returncode == 74, proc.stderr
    assert NOSPACE in proc.stderr.lower() and str(tmpfs.path) in proc.stderr


# --- standard output ----------------------------------------------------------------------

STDOUT_FAILED = "cannot write to standard output: "


def stdout_commands(work):
    return {
        "--help": ["--help"],
        "--version": ["--version"],
        "run --help": ["run", "--help"],
        "synth --help": ["synth", "--help"],
        "validate pipeline": ["validate", str(work / "hdf5.yaml")],
        "validate text": ["validate", str(work / "dataset")],
        "validate json": ["validate", str(work / "dataset"), "--format", "json"],
        "validate junit": ["validate", str(work / "dataset"), "--format", "junit"],
        "inspect dataset": ["inspect", str(work / "dataset")],
        "inspect --json dataset": ["inspect", str(work / "dataset"), "--json"],
        "inspect --json pipeline": ["inspect", str(work / "hdf5.yaml"), "--json"],
        "inspect file": ["inspect", str(work / "data/subject01/rec-01.csv")],
        "report": ["report", str(work / "dataset"), "-o", str(work / "report.html")],
    }


def test_stdout_onto_a_full_device_is_exit_74(work):
    with open("/dev/full", "w") as full:
        for name, args in stdout_commands(work).items():
            proc = subprocess.run([BIN, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
            assert proc.returncode == 74, f"{name}: exit {proc.returncode}\n{proc.stderr}"
            assert STDOUT_FAILED + "No space left on device" in proc.stderr, f"{name}: {proc.stderr}"


def test_run_json_onto_a_full_device_is_exit_74(work, tmp_path):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([BIN, "run", str(work / "hdf5.yaml"), "--quiet", "--json", "--out", str(tmp_path / "out")],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 74, proc.stderr
    assert STDOUT_FAILED + "No space left on device" in proc.stderr


def closed_pipe_run(args):
    """Runs motionprep with stdout a pipe whose read end is already closed (as `| head -c0`
    leaves it), with SIGPIPE at its default, as a shell would start it."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([BIN, *args], stdout=w, stderr=subprocess.PIPE, text=True, timeout=300,
                              restore_signals=True)
    finally:
        os.close(w)


def test_stdout_onto_a_closed_pipe_is_exit_74_not_sigpipe(work, tmp_path):
    cases = dict(stdout_commands(work))
    cases["run --json"] = ["run", str(work / "hdf5.yaml"), "--quiet", "--json", "--out", str(tmp_path / "out")]
    for name, args in cases.items():
        proc = closed_pipe_run(args)
        assert proc.returncode == 74, f"{name}: exit {proc.returncode} (-13 is SIGPIPE)\n{proc.stderr}"
        assert STDOUT_FAILED + "Broken pipe" in proc.stderr, f"{name}: {proc.stderr}"


def test_a_shell_pipe_into_head_reports_the_closed_pipe(work, tmp_path):
    script = f'"{BIN}" run "{work / "hdf5.yaml"}" --quiet --json --out "{tmp_path / "out"}" | head -c0; echo "${{PIPESTATUS[0]}}"'
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip() == "74", proc.stderr
    assert STDOUT_FAILED + "Broken pipe" in proc.stderr


# --- report -o ----------------------------------------------------------------------------

def report(work, out, check=False):
    return motionprep("report", work / "dataset", "-o", out, "--quiet", check=check)


def test_report_into_a_fifo_writes_through_it_and_keeps_it(work, tmp_path):
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = report(work, fifo)
    reader.join(timeout=20)
    assert proc.returncode == 0, proc.stderr
    assert got and got[0].startswith(b"<!DOCTYPE html>")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.fifo"]


def device_node(tmp_path, name, minor):
    """A character device node like /dev/null (1, 3) or /dev/full (1, 7), made for the test so
    that a regression replaces a copy, not the machine's own."""
    path = tmp_path / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        with open(path, "wb") as f:
            f.write(b"")
    except OSError as e:
        pytest.skip(f"cannot make and open a device node in {tmp_path}: {e}")
    return path


def test_report_into_a_device_writes_into_it_and_keeps_it(work, tmp_path):
    null = device_node(tmp_path, "null", 3)
    proc = report(work, null)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    full = device_node(tmp_path, "full", 7)
    proc = report(work, full)
    assert proc.returncode == 74, proc.stderr
    assert NOSPACE in proc.stderr.lower()
    assert stat.S_ISCHR(os.lstat(full).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "null"]


def test_report_refuses_a_symlink_and_a_folder(work, tmp_path):
    target = tmp_path / "target.html"
    target.write_text("not yours\n")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    proc = report(work, link)
    assert proc.returncode == 73, proc.stderr
    assert "symbolic link" in proc.stderr and str(link) in proc.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "not yours\n"

    dangling = tmp_path / "dangling.html"
    dangling.symlink_to(tmp_path / "nowhere.html")
    proc = report(work, dangling)
    assert proc.returncode == 73, proc.stderr
    assert dangling.is_symlink() and not (tmp_path / "nowhere.html").exists()

    folder = tmp_path / "folder"
    folder.mkdir()
    proc = report(work, folder)
    assert proc.returncode == 73, proc.stderr
    assert "folder" in proc.stderr and list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.html", "folder", "link.html", "target.html"]


def test_report_replaces_its_own_page_and_a_users_file_only_with_force(work, tmp_path):
    """docs/hardening.md, "One output policy": a page motionprep wrote (its last line seals the
    bytes above it) is replaced; a file of the user's, or an edited page, only with --force."""
    page = tmp_path / "r.html"
    page.write_text("old\n")
    proc = report(work, page)
    assert proc.returncode == 73, proc.stderr
    assert "--force" in proc.stderr and str(page) in proc.stderr
    assert page.read_text() == "old\n"
    proc = motionprep("report", work / "dataset", "-o", page, "--quiet", "--force", check=False)
    assert proc.returncode == 0, proc.stderr
    first = page.read_bytes()
    assert first.startswith(b"<!DOCTYPE html>") and first.endswith(b" -->\n")
    body, seal = first.rsplit(b"\n<!-- motionprep: sha256 of the bytes above: ", 1)
    assert seal[:64].decode() == hashlib.sha256(body + b"\n").hexdigest()
    # Its own page, unchanged: replaced without --force.
    assert report(work, page).returncode == 0
    # Edited since: the user's now.
    page.write_bytes(first.replace(b"<!DOCTYPE html>", b"<!DOCTYPE html><!-- my note -->", 1))
    edited = page.read_bytes()
    assert report(work, page).returncode == 73 and page.read_bytes() == edited
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_report_never_writes_inside_a_dataset(work, tmp_path):
    """`report DS -o DS/manifest.json` once overwrote the dataset's manifest with the page."""
    ds = tmp_path / "ds"
    shutil.copytree(work / "dataset", ds)
    before = {p.name: p.read_bytes() for p in ds.iterdir()}
    for target in (ds / "manifest.json", ds / "report.html"):
        proc = motionprep("report", ds, "-o", target, "--quiet", "--force", check=False)
        assert proc.returncode == 73, proc.stderr
        assert "inside a motionprep dataset" in proc.stderr or "is the dataset folder" in proc.stderr or "inside the dataset folder" in proc.stderr, proc.stderr
    assert {p.name: p.read_bytes() for p in ds.iterdir()} == before
    motionprep("validate", ds)


# --- inspect --samples ----------------------------------------------------------------------

def samples(work, out, yaml=None):
    return motionprep("inspect", yaml or work / "hdf5.yaml", "--samples", out, check=False)


def tree(d: Path):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*"))


def test_samples_refuses_a_folder_that_is_not_its_own(work, tmp_path):
    d = tmp_path / "notes"
    d.mkdir()
    (d / "keep.txt").write_text("mine\n")
    proc = samples(work, d)
    assert proc.returncode == 73, proc.stderr
    assert "not empty" in proc.stderr and str(d) in proc.stderr
    assert tree(d) == ["keep.txt"] and (d / "keep.txt").read_text() == "mine\n"


def test_samples_replaces_its_own_folder_but_nothing_else(work, tmp_path):
    d = tmp_path / "samples"
    assert samples(work, d).returncode == 0
    assert (d / ".motionprep-samples").is_file()
    first = tree(d)
    assert any(p.endswith(".csv") for p in first), first
    # Unchanged: replaced.
    assert samples(work, d).returncode == 0 and tree(d) == first
    # A file of the user's inside a recording's folder (once silently deleted): refused, kept.
    top = sorted(p for p in d.iterdir() if p.name != ".motionprep-samples")[0]
    (top / "stale.csv").write_text("my notes\n")
    proc = samples(work, d)
    assert proc.returncode == 73, proc.stderr
    assert "stale.csv" in proc.stderr and (top / "stale.csv").read_text() == "my notes\n"
    (top / "stale.csv").unlink()
    # A file it wrote, edited since: the user's now.
    written = sorted(p for p in top.rglob("*.csv"))[0]
    written.write_text(written.read_text() + "0,0\n")
    proc = samples(work, d)
    assert proc.returncode == 73 and "changed since" in proc.stderr, proc.stderr
    written.unlink()
    proc = samples(work, d)
    assert proc.returncode == 0, proc.stderr
    assert tree(d) == first
    # Something of the user's in it: refused, and left alone.
    (d / "mine.txt").write_text("mine\n")
    proc = samples(work, d)
    assert proc.returncode == 73, proc.stderr
    assert "mine.txt" in proc.stderr
    assert (d / "mine.txt").read_text() == "mine\n" and tree(d) == sorted(first + ["mine.txt"])


def test_samples_never_follows_a_link_inside_its_folder(work, tmp_path):
    d = tmp_path / "samples"
    assert samples(work, d).returncode == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep\n")
    top = sorted(p.name for p in d.iterdir() if p.name != ".motionprep-samples")[0]
    shutil.rmtree(d / top)
    (d / top).symlink_to(outside, target_is_directory=True)
    proc = samples(work, d)
    # A link is never motionprep's: refused, and neither it nor its target touched.
    assert proc.returncode == 73, proc.stderr
    assert "symbolic link" in proc.stderr
    assert tree(outside) == ["precious.txt"] and (outside / "precious.txt").read_text() == "keep\n"
    assert (d / top).is_symlink()


def test_samples_refuses_a_symlinked_folder(work, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    proc = samples(work, link)
    assert proc.returncode == 73, proc.stderr
    assert "symbolic link" in proc.stderr
    assert tree(real) == []


def test_samples_never_writes_into_an_input_tree(work, tmp_path):
    before = tree(work / "data")
    for out in (work / "data/samples", work / "data/subject01/samples", work / "data/./subject02/../samples"):
        proc = samples(work, out)
        assert proc.returncode == 73, proc.stderr
        assert "inside" in proc.stderr and "data" in proc.stderr
    # Through a link to the input folder, too.
    link = tmp_path / "data-link"
    link.symlink_to(work / "data", target_is_directory=True)
    proc = samples(work, link / "samples")
    assert proc.returncode == 73, proc.stderr
    # A folder holding the input tree.
    proc = samples(work, work)
    assert proc.returncode == 73, proc.stderr
    assert "holds" in proc.stderr
    assert tree(work / "data") == before


def test_samples_refuses_a_recording_name_that_leaves_the_folder(work, tmp_path):
    yaml = work / "escape.yaml"
    yaml.write_text(pipeline().replace('subject: "{dir}"', 'subject: "{dir}"\n    recording: "../escaped-{dir}-{stem}"'))
    d = tmp_path / "a" / "samples"
    proc = samples(work, d, yaml=yaml)
    assert proc.returncode == 73, proc.stderr
    assert "escaped" in proc.stderr
    assert not (tmp_path / "a").exists() or tree(tmp_path / "a") in ([], ["samples"])


# --- synth ----------------------------------------------------------------------------------

def test_synth_never_writes_through_a_link_or_into_a_fifo(tmp_path):
    out = tmp_path / "synth"
    (out / "subject01").mkdir(parents=True)
    target = tmp_path / "precious.csv"
    target.write_text("keep\n")
    (out / "subject01/rec-01.csv").symlink_to(target)
    proc = motionprep("synth", "--out", out, "--subjects", 1, "--recordings", 1, "--minutes", 0.1, check=False)
    assert proc.returncode == 73, proc.stderr
    assert "not empty" in proc.stderr and "motionprep synth" in proc.stderr
    assert target.read_text() == "keep\n" and (out / "subject01/rec-01.csv").is_symlink()

    (out / "subject01/rec-01.csv").unlink()
    os.mkfifo(out / "subject01/rec-01.csv")
    proc = subprocess.run([BIN, "synth", "--out", str(out), "--subjects", "1", "--recordings", "1", "--minutes", "0.1"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 73, proc.stderr
    assert stat.S_ISFIFO(os.lstat(out / "subject01/rec-01.csv").st_mode)


def test_synth_replaces_its_own_output_and_nothing_else(tmp_path):
    out = tmp_path / "synth"
    args = ["synth", "--out", out, "--subjects", 1, "--recordings", 2, "--minutes", 0.1]
    motionprep(*args)
    first = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert ".motionprep-synth" in first
    motionprep(*args)
    assert {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()} == first
    # A user's file among them (once overwritten or kept mixed in): refused, kept.
    (out / "subject01" / "notes.txt").write_text("mine\n")
    proc = motionprep(*args, check=False)
    assert proc.returncode == 73 and "notes.txt" in proc.stderr, proc.stderr
    assert (out / "subject01" / "notes.txt").read_text() == "mine\n"
    # synth never writes into a user's non-empty folder either.
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "subject01").mkdir()
    (mine / "subject01" / "rec-01.csv").write_text("my recording\n")
    proc = motionprep("synth", "--out", mine, "--subjects", 1, "--recordings", 1, "--minutes", 0.1, check=False)
    assert proc.returncode == 73, proc.stderr
    assert (mine / "subject01" / "rec-01.csv").read_text() == "my recording\n"
