"""Data safety, names (issue 24 point 4; docs/hardening.md, "Data safety: names"): names that differ only in
Unicode normalisation are never silently merged, `init` keeps sequential recordings of a folder apart, writes
every name into YAML and globs escaped, never prints a raw escape sequence, and stays linear on thousands of
small files."""
import json
import os
import subprocess
import time
import unicodedata

import h5py
import numpy as np

from conftest import BIN, motionprep

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")


def write_csv(path, n=300, t0=0, step=20, columns=("x", "y", "z"), labels=None, seed=0):
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    head = "timestamp_ms," + ",".join(columns) + (",label" if labels else "")
    rows = []
    for i in range(n):
        vals = ",".join(f"{v:.4f}" for v in rng.normal(size=len(columns)))
        rows.append(f"{t0 + i * step},{vals}" + (f",{labels[i * len(labels) // n]}" if labels else ""))
    path.write_bytes((head + "\n" + "\n".join(rows) + "\n").encode())


def init_run(tmp_path, data, name="p.yaml"):
    p = motionprep("init", data, "-o", name, cwd=tmp_path)
    yaml = (tmp_path / name).read_text()
    v = motionprep("validate", name, cwd=tmp_path, check=False)
    assert v.returncode == 0 and v.stdout.strip() == f"{name}: ok", (yaml, v.stdout, v.stderr)
    motionprep("run", name, "--quiet", cwd=tmp_path)
    out = tmp_path / "build" / name.rsplit(".", 1)[0]
    return p, yaml, out, json.loads((out / "manifest.json").read_text())


def windows(out):
    """(class index, recording index) of every window of every split."""
    pairs = []
    for split in ("train", "validation", "test"):
        if (out / f"{split}.h5").exists():
            with h5py.File(out / f"{split}.h5") as f:
                pairs += list(zip(f["y"][:].tolist(), f["recording_index"][:].tolist()))
    return pairs


# 1. Unicode normalisation


def test_names_differing_only_in_normalisation_are_both_found_and_refused_by_name(tmp_path):
    assert NFC != NFD.encode() and NFC.encode() != NFD.encode()
    for i, form in enumerate((NFC, NFD)):
        write_csv(tmp_path / "data" / "alice" / f"{form}.csv", seed=i)
        write_csv(tmp_path / "data" / "bob" / f"{form}.csv", seed=i + 2)
    assert len(os.listdir(tmp_path / "data" / "alice")) == 2
    p = motionprep("init", "data", "-o", "p.yaml", cwd=tmp_path)
    # init looks at both files (it used to take them for one).
    assert p.stdout.count("alice/caf") == 2 and p.stdout.count("bob/caf") == 2, p.stdout
    assert "4 file(s)" in (tmp_path / "p.yaml").read_text()
    for cmd in ("run",):
        r = motionprep(cmd, "p.yaml", "--quiet", cwd=tmp_path, check=False)
        assert r.returncode == 78, (cmd, r.stdout, r.stderr)
        assert "differ only in Unicode normalisation" in r.stderr, r.stderr
        # Both names, told apart by their scalars.
        assert "caf\\u{E9}" in r.stderr and "cafe\\u{301}" in r.stderr, r.stderr
    assert not (tmp_path / "build").exists()


def test_subject_folders_differing_only_in_normalisation_are_refused(tmp_path):
    for i, form in enumerate((NFC, NFD)):
        write_csv(tmp_path / "data" / form / "rec.csv", seed=i)
    (tmp_path / "p.yaml").write_text(
        'version: 1\nname: n\ninputs:\n  - type: csv\n    paths: ["data/**/rec.csv"]\n'
        '    time: {column: timestamp_ms, unit: ms}\n    channels: {x: x, y: y, z: z}\n    subject: "{dir}"\n    recording: "{dirpath}"\n'
        "resample: {rate_hz: 50}\nwindow: {length_s: 1, stride_s: 1}\noutput: {type: hdf5, path: build/n}\n")
    r = motionprep("run", "p.yaml", "--quiet", cwd=tmp_path, check=False)
    assert r.returncode == 78 and "differ only in Unicode normalisation" in r.stderr, r.stderr
    assert f"data/{NFC}/rec.csv" in r.stderr and f"data/{NFD}/rec.csv" in r.stderr


def test_names_that_differ_in_more_are_both_read_in_byte_order(tmp_path):
    # caf\u00e9-1 (NFC) and cafe\u0301-2 (NFD): two recordings, sorted by their bytes.
    write_csv(tmp_path / "data" / "s1" / f"{NFD}-2.csv", seed=1)
    write_csv(tmp_path / "data" / "s1" / f"{NFC}-1.csv", seed=2)
    write_csv(tmp_path / "data" / "s2" / "x.csv", seed=3)
    _, yaml, out, manifest = init_run(tmp_path, "data")
    recs = manifest["recordings"]
    assert sorted(r.encode() for r in recs) == sorted([f"s1/{NFD}-2".encode(), f"s1/{NFC}-1".encode(), b"s2/x"]), recs


# 2. Sequential recordings in one folder


def test_sequential_files_in_a_folder_are_separate_recordings(tmp_path):
    for s, subj in enumerate(["alice", "bob", "carol"]):
        write_csv(tmp_path / "data" / subj / "rec-01.csv", t0=0, seed=s)
        write_csv(tmp_path / "data" / subj / "rec-02.csv", t0=600_000, seed=s + 10)
    _, yaml, out, manifest = init_run(tmp_path, "data")
    assert yaml.count("  - type: csv") == 1, yaml
    assert "recording:" not in yaml
    assert [c["name"] for c in manifest["channels"]] == ["x", "y", "z"]
    assert sorted(manifest["recordings"]) == [f"{s}/rec-0{i}" for s in ("alice", "bob", "carol") for i in (1, 2)]
    recs = {r for _, r in windows(out)}
    assert len(recs) == 6


def test_streams_of_one_recording_with_the_same_columns_stay_one_recording(tmp_path):
    # Accelerometer.csv and Gyroscope.csv with the same header, at the same times: one recording.
    for s, subj in enumerate(["alice", "bob", "carol"]):
        write_csv(tmp_path / "data" / subj / "Accelerometer.csv", seed=s)
        write_csv(tmp_path / "data" / subj / "Gyroscope.csv", seed=s + 10)
    _, yaml, out, manifest = init_run(tmp_path, "data")
    assert yaml.count("  - type: csv") == 2 and yaml.count('recording: "{dirpath}"') == 2, yaml
    assert len(manifest["channels"]) == 6
    assert sorted(manifest["recordings"]) == ["alice", "bob", "carol"]


# 3. YAML and glob escaping of names

SPECIAL_LABELS = ["Walk: fast\non_error: skip", "Run [x]*? {y} #z"]
SPECIAL_SUBJECTS = ['a"quote\'s', "&anchor !tag |pipe >fold", "%pct @at `tick`", "-lead", " lead space",
                    "back\\slash\ttab"]


def test_names_with_yaml_and_glob_characters_are_written_escaped(tmp_path):
    data = tmp_path / "my [data]*"
    files = []
    for li, label in enumerate(SPECIAL_LABELS):
        for si, subj in enumerate(SPECIAL_SUBJECTS):
            f = data / label / subj / "rec [1]*?.csv"
            write_csv(f, seed=li * 10 + si)
            files.append(f)
    # A file the patterns must not read: same extension, another name, no time column.
    (data / "notes.csv").write_text("a,b\nx,y\n")
    p, yaml, out, manifest = init_run(tmp_path, "my [data]*")
    # No name starts a line of its own: the only top-level keys are init's.
    assert "\non_error" not in yaml and "\n#z" not in yaml, yaml
    assert 'paths: ["my \\\\[data\\\\]\\\\*/**/rec \\\\[1\\\\]\\\\*\\\\?.csv"]' in yaml, yaml
    assert sorted(manifest["classes"]) == sorted(SPECIAL_LABELS)
    assert sorted(manifest["subjects"]) == sorted(SPECIAL_SUBJECTS)
    assert len(manifest["recordings"]) == len(files)
    # Every window's class is the label folder its recording sits in.
    pairs = windows(out)
    assert pairs
    for y, r in pairs:
        assert manifest["recordings"][r].startswith(manifest["classes"][y] + "/"), (manifest["recordings"][r], manifest["classes"][y])


# 4. Terminal escapes


def test_init_and_inspect_print_escape_sequences_escaped(tmp_path):
    f = tmp_path / "data" / "s1" / "\x1b[31mred.csv"
    write_csv(f, labels=["walk\x07", "sit"])
    write_csv(tmp_path / "data" / "s2" / "\x1b[31mred.csv", labels=["walk\x07", "sit"], seed=1)
    raw = subprocess.run([BIN, "init", "data", "-o", "p.yaml"], cwd=tmp_path, capture_output=True)
    assert raw.returncode == 0, raw.stderr
    assert b"\x1b" not in raw.stdout and b"\x07" not in raw.stdout, raw.stdout
    assert b"\\u{1B}[31mred.csv" in raw.stdout and b"walk\\u{7}" in raw.stdout, raw.stdout
    yaml = (tmp_path / "p.yaml").read_bytes()
    assert b"\x1b" not in yaml and b"\x07" not in yaml
    raw = subprocess.run([BIN, "inspect", f], capture_output=True)
    assert raw.returncode == 0, raw.stderr
    assert b"\x1b" not in raw.stdout and b"\x07" not in raw.stdout
    assert b"\\u{1B}[31mred" in raw.stdout and b"walk\\u{7}" in raw.stdout
    # An error naming the file: escaped too.
    bad = tmp_path / "\x1b[2Jbad.csv"
    bad.write_bytes(b"\x00\x01\x02")
    raw = subprocess.run([BIN, "inspect", bad], capture_output=True)
    assert raw.returncode != 0 and b"\x1b" not in raw.stderr and b"\\u{1B}[2Jbad.csv" in raw.stderr, raw.stderr
    # The drafted pipeline still runs and the label is spelled as in the file.
    assert motionprep("validate", "p.yaml", cwd=tmp_path).returncode == 0
    motionprep("run", "p.yaml", "--quiet", cwd=tmp_path)
    manifest = json.loads((tmp_path / "build" / "p" / "manifest.json").read_text())
    assert sorted(manifest["classes"]) == ["sit", "walk\x07"]


# 5. Bounded work


def test_init_on_thousands_of_small_files_is_linear(tmp_path):
    data = tmp_path / "data"
    body = "timestamp_ms,x,y,z\n" + "".join(f"{i * 20},0.1,0.2,0.3\n" for i in range(20))
    for s in range(60):
        d = data / f"subject{s:03d}"
        d.mkdir(parents=True)
        for r in range(50):
            (d / f"rec-{r:03d}.csv").write_text(body)
    start = time.monotonic()
    p = subprocess.run([BIN, "init", "data", "-o", "p.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    assert p.returncode == 0, p.stderr
    assert "1 input(s) over 3000 file(s)" in p.stdout, p.stdout[-500:]
    assert took < 60
    yaml = (tmp_path / "p.yaml").read_text()
    assert yaml.count("  - type: csv") == 1 and 'paths: ["data/**/*.csv"]' in yaml
