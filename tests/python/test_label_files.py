"""Labels as people have them (docs/signal.md, "The label of each point"): recordings labelled by the
folder they sit in (`from: path`), RFC 4180 intervals files, `labels.clock`, and the rows of an
intervals file that label nothing (warnings and `counts.label_rows_ignored`), each checked against
expectations computed here, on the whole and the streamed path."""
import csv
import json
import os
import shutil
import subprocess

import h5py
import pytest

import reference as ref
from conftest import BIN, motionprep

RATE, LENGTH, STRIDE = 50.0, 100, 50
WHOLE = {"MOTIONPREP_STREAM_BLOCK_BYTES": str(1 << 40)}  # each file in one block
STREAMED = {"MOTIONPREP_STREAM_BLOCK_BYTES": "4096"}


def run(pipeline, out, env, check=True):
    proc = subprocess.run([BIN, "run", str(pipeline), "--out", str(out)], capture_output=True, text=True,
                          env={**os.environ, **env})
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def windows(out):
    rows = []
    for split in ("train", "validation", "test"):
        with h5py.File(out / f"{split}.h5", "r") as f:
            names = list(f.attrs["recording_names"])
            classes = list(f.attrs["class_names"])
            for r, t, y in zip(f["recording_index"][...], f["start_time_s"][...], f["y"][...]):
                rows.append((names[r], float(t), classes[y] if y >= 0 else None))
    return sorted(rows)


def data_files(out):
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.h5"))}


def grid_of(path):
    streams, _ = ref.read_motioncollector(path)
    return ref.resample([streams["A"]], RATE, 0.25)


def pipeline(root, name, labels, paths='"data/subject01/*.csv"', extra=""):
    yaml = root / f"{name}.yaml"
    yaml.write_text(f"""version: 1
inputs:
  - type: motioncollector
    paths: [{paths}]
    sensors: [A]
{extra}resample: {{rate_hz: {RATE}, antialias: false}}
window: {{length_samples: {LENGTH}, stride_samples: {STRIDE}}}
labels: {labels}
split: {{fractions: {{train: 1.0, validation: 0, test: 0}}}}
output: {{path: out-{name}}}
""")
    return yaml


def pure_windows(path, name, spans, shift=0.0):
    """The windows of `path` whose every point lies in one span [a, b) (times + shift), with its label."""
    grid, _, valid = grid_of(path)
    out = []
    for s in ref.window_starts(valid, LENGTH, STRIDE):
        labels = set()
        for t in grid[s:s + LENGTH]:
            hit = [l for a, b, l in spans if a + shift <= t < b + shift]
            labels.add(hit[0] if hit else None)
        if len(labels) == 1 and None not in labels:
            out.append((name, float(grid[s]), labels.pop()))
    return out


@pytest.fixture(scope="module")
def by_folder(walk_data, tmp_path_factory):
    """Walking/a.csv, Walking/b.csv, Squats/c.csv: the layout of public phone datasets."""
    root = tmp_path_factory.mktemp("byfolder")
    src = sorted((walk_data / "data").glob("**/*.csv"))[:3]
    for folder, stem, path in zip(["Walking", "Walking", "Squats"], ["a", "b", "c"], src):
        (root / "data" / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, root / "data" / folder / f"{stem}.csv")
    return root


def test_path_labels_every_window_of_a_recording_by_its_folder(by_folder):
    yaml = pipeline(by_folder, "path", '{from: path, template: "{dir}", classes: [Squats, Walking]}',
                    paths='"data/*/*.csv"', extra='    subject: "{stem}"\n')
    run(yaml, by_folder / "whole", WHOLE)
    run(yaml, by_folder / "streamed", STREAMED)
    got = windows(by_folder / "whole")
    expected = []
    for folder, stem in (("Walking", "a"), ("Walking", "b"), ("Squats", "c")):
        grid, _, valid = grid_of(by_folder / "data" / folder / f"{stem}.csv")
        expected += [(f"{folder}/{stem}", float(grid[s]), folder) for s in ref.window_starts(valid, LENGTH, STRIDE)]
    assert got == sorted(expected) and {c for *_, c in got} == {"Walking", "Squats"}
    assert data_files(by_folder / "whole") == data_files(by_folder / "streamed")
    # `map` and `classes` apply as usual: a folder left out of `classes` drops its windows.
    yaml = pipeline(by_folder, "path-map", '{from: path, template: "{dir}", map: {Walking: walk}, classes: [walk]}',
                    paths='"data/*/*.csv"', extra='    subject: "{stem}"\n')
    run(yaml, by_folder / "mapped", WHOLE)
    assert windows(by_folder / "mapped") == sorted((n, t, "walk") for n, t, c in expected if c == "Walking")
    manifest = json.loads((by_folder / "mapped" / "manifest.json").read_text())
    assert manifest["counts"]["windows_dropped"] == {"label_not_in_classes": sum(c == "Squats" for *_, c in expected)}
    assert "label_rows_ignored" not in manifest["counts"]
    # inspect lists the rendered label of every recording.
    reports = json.loads(motionprep("inspect", yaml, "--json").stdout)["recordings"]
    assert {r["recording"]: (r["labels"]["source"], [s["label"] for s in r["labels"]["segments"]]) for r in reports} == {
        "Walking/a": ("path", ["Walking"]), "Walking/b": ("path", ["Walking"]), "Squats/c": ("path", ["Squats"])}
    assert "  labels (path): Squats " in motionprep("inspect", yaml).stdout
    # --samples writes the label from the recording's first sample.
    motionprep("inspect", yaml, "--samples", by_folder / "samples")
    with open(by_folder / "samples" / "Squats" / "c" / "labels.csv", newline="") as f:
        rows = list(csv.reader(f))
    streams, _ = ref.read_motioncollector(by_folder / "data" / "Squats" / "c.csv")
    assert rows == [["time_s", "label"], [repr(float(streams["A"][0][0])), "Squats"]]


def test_path_labels_must_agree_across_a_recordings_files(by_folder):
    yaml = pipeline(by_folder, "path-two", '{from: path, template: "{dir}", classes: [Squats, Walking]}',
                    paths='"data/*/*.csv"', extra='    recording: "all"\n    subject: "x"\n')
    p = motionprep("run", yaml, "--quiet", check=False)
    assert p.returncode == 78
    assert "recording `all` gets label `Squats` from" in p.stderr and "must give every file of a recording the same label" in p.stderr


def test_rfc4180_intervals_file_with_quoted_names(walk_data, tmp_path):
    src = sorted((walk_data / "data" / "subject01").glob("*.csv"))[:2]
    (tmp_path / "data").mkdir()
    names = ["walk, slow", 'say "hi"']
    for path, name in zip(src, names):
        shutil.copy(path, tmp_path / "data" / f"{name}.csv")
    labels = ['fast, "really"', "multi\nline"]
    text = ('\ufeffrecording,start_s,end_s,label\r\n'
            '"walk, slow",5.0,20.0,"fast, ""really"""\r\n'
            '\r\n'
            ' "say ""hi""" , 12.25 , 40 ,"multi\r\nline"\r\n')
    (tmp_path / "intervals.csv").write_bytes(text.encode())
    # Python's csv module reads the file independently.
    with open(tmp_path / "intervals.csv", newline="", encoding="utf-8-sig") as f:
        parsed = [[c.strip() for c in r] for r in csv.reader(f, skipinitialspace=True) if r]
    assert [r[0] for r in parsed[1:]] == names
    yaml = pipeline(tmp_path, "rfc", '{from: intervals, path: intervals.csv, policy: pure, '
                    'classes: ["fast, \\"really\\"", "multi\\r\\nline"]}', paths='"data/*.csv"')
    run(yaml, tmp_path / "whole", WHOLE)
    run(yaml, tmp_path / "streamed", STREAMED)
    expected = []
    for row, name in zip(parsed[1:], names):
        expected += pure_windows(tmp_path / "data" / f"{name}.csv", name, [(float(row[1]), float(row[2]), row[3])])
    got = windows(tmp_path / "whole")
    assert got == sorted(expected) and {c for *_, c in got} == {'fast, "really"', "multi\r\nline"}
    assert data_files(tmp_path / "whole") == data_files(tmp_path / "streamed")
    # inspect lists the rows matched for each recording.
    reports = {r["recording"]: r for r in json.loads(motionprep("inspect", yaml, "--json").stdout)["recordings"]}
    assert reports["walk, slow"]["labels"]["source"] == "intervals"
    assert reports["walk, slow"]["labels"]["rows"] == [{"line": 2, "start_s": 5.0, "end_s": 20.0, "label": 'fast, "really"'}]
    assert reports['say "hi"']["labels"]["rows"] == [{"line": 4, "start_s": 12.25, "end_s": 40.0, "label": "multi\r\nline"}]
    assert 'fast, "really"' in [s["label"] for s in reports["walk, slow"]["labels"]["segments"]]


@pytest.mark.parametrize("value,message", [
    ("0x10", "intervals.csv:2:3: error: start_s `0x10` is not a number of seconds (expected a decimal such as `12.5` or `1.2e3`; hex, `inf`, `nan` and empty values are not accepted)"),
    ("inf", "intervals.csv:2:3: error: start_s `inf` is not a number of seconds (expected a decimal such as `12.5` or `1.2e3`; hex, `inf`, `nan` and empty values are not accepted)"),
])
def test_intervals_numbers_use_the_input_grammar(walk_data, tmp_path, value, message):
    (tmp_path / "data").mkdir()
    shutil.copy(sorted((walk_data / "data" / "subject01").glob("*.csv"))[0], tmp_path / "data" / "r.csv")
    (tmp_path / "intervals.csv").write_text(f"recording,start_s,end_s,label\nr,{value},20,walk\n")
    yaml = pipeline(tmp_path, "hex", "{from: intervals, path: intervals.csv, classes: [walk]}", paths='"data/*.csv"')
    p = motionprep("run", yaml, "--quiet", check=False)
    assert p.returncode == 65
    assert p.stderr.strip().endswith(message), p.stderr


def test_intervals_unclosed_quote_names_where_it_opens(walk_data, tmp_path):
    (tmp_path / "data").mkdir()
    shutil.copy(sorted((walk_data / "data" / "subject01").glob("*.csv"))[0], tmp_path / "data" / "r.csv")
    (tmp_path / "intervals.csv").write_text('recording,start_s,end_s,label\nr,1,20,"walk\n')
    yaml = pipeline(tmp_path, "quote", "{from: intervals, path: intervals.csv, classes: [walk]}", paths='"data/*.csv"')
    p = motionprep("run", yaml, "--quiet", check=False)
    assert p.returncode == 65
    assert "intervals.csv:2:8: error: a quoted field is not closed before the end of the file" in p.stderr, p.stderr


def test_clock_recording_gives_the_windows_of_shifted_input_times(walk_data, tmp_path):
    path = sorted((walk_data / "data" / "subject01").glob("*.csv"))[0]
    (tmp_path / "data").mkdir()
    shutil.copy(path, tmp_path / "data" / "r.csv")
    streams, _ = ref.read_motioncollector(path)
    t0 = float(streams["A"][0][0])      # the grid's T0: the latest first sample of the kept streams (one here)
    spans = [(3.0, 17.5, "walk"), (17.5, 30.0, "run")]
    (tmp_path / "rec.csv").write_text("recording,start_s,end_s,label\n" + "".join(f"r,{a!r},{b!r},{l}\n" for a, b, l in spans))
    (tmp_path / "inp.csv").write_text("recording,start_s,end_s,label\n" + "".join(f"r,{a + t0!r},{b + t0!r},{l}\n" for a, b, l in spans))
    rec = pipeline(tmp_path, "rec", "{from: intervals, path: rec.csv, clock: recording, policy: pure, classes: [walk, run]}",
                   paths='"data/*.csv"')
    inp = pipeline(tmp_path, "inp", "{from: intervals, path: inp.csv, policy: pure, classes: [walk, run]}", paths='"data/*.csv"')
    for env, tag in ((WHOLE, "whole"), (STREAMED, "streamed")):
        run(rec, tmp_path / f"rec-{tag}", env)
        run(inp, tmp_path / f"inp-{tag}", env)
    got = windows(tmp_path / "rec-whole")
    assert got == windows(tmp_path / "inp-whole") == sorted(pure_windows(path, "r", spans, shift=t0))
    assert {c for *_, c in got} == {"walk", "run"}
    assert data_files(tmp_path / "rec-whole") == data_files(tmp_path / "rec-streamed")
    assert data_files(tmp_path / "inp-whole") == data_files(tmp_path / "inp-streamed")
    # The pipeline hash tells the two clocks apart.
    sha = [json.loads((tmp_path / d / "manifest.json").read_text())["pipeline"]["sha256"] for d in ("rec-whole", "inp-whole")]
    assert sha[0] != sha[1]


def test_rows_that_label_nothing_are_warned_about_and_counted(walk_data, tmp_path):
    src = sorted((walk_data / "data" / "subject01").glob("*.csv"))[:2]
    (tmp_path / "data").mkdir()
    for path, name in zip(src, ["r1", "r2"]):
        shutil.copy(path, tmp_path / "data" / f"{name}.csv")
    rows = ["recording,start_s,end_s,label",
            "r1,5,20,W",                # kept
            "ghost,5,20,W",             # unknown_recording
            "r1,20,30,sit",             # label_not_in_classes
            "r2,100000,100001,W",       # no_overlap: after the recording's last sample
            "phantom,1,2,W",            # unknown_recording
            "r2,5,30,W"]                # kept
    (tmp_path / "intervals.csv").write_text("\n".join(rows) + "\n")
    yaml = pipeline(tmp_path, "ignored", "{from: intervals, path: intervals.csv, map: {W: walk}, classes: [walk]}",
                    paths='"data/*.csv"')
    f = tmp_path / "intervals.csv"
    for env, tag in ((WHOLE, "whole"), (STREAMED, "streamed")):
        p = run(yaml, tmp_path / tag, env)
        warnings = [l for l in p.stderr.splitlines() if l.startswith("motionprep: warning:")]
        assert f"motionprep: warning: 2 row(s) of {f} name no recording of the pipeline and label nothing: `ghost` at {f}:3, `phantom` at {f}:6; recording names are listed by `motionprep inspect`" in warnings
        assert f"motionprep: warning: 1 row(s) of {f} have a label that is not in `labels.classes` (after `labels.map`), so their windows are dropped: `sit` at {f}:4; add it to `classes` or rename it with `map`" in warnings
        assert f"motionprep: warning: 1 row(s) of {f} cover no sample of their recording and label nothing: {f}:5; check the times against the recording's (`labels.clock`, `motionprep inspect`)" in warnings
        manifest = json.loads((tmp_path / tag / "manifest.json").read_text())
        assert manifest["counts"]["label_rows_ignored"] == {"unknown_recording": 2, "label_not_in_classes": 1, "no_overlap": 1}
        motionprep("validate", tmp_path / tag)
    assert data_files(tmp_path / "whole") == data_files(tmp_path / "streamed")
    # Nothing to warn about: every count is 0 and no warning names the file.
    (tmp_path / "intervals.csv").write_text("recording,start_s,end_s,label\nr1,5,20,W\n")
    p = run(yaml, tmp_path / "clean", WHOLE)
    assert "intervals.csv" not in p.stderr
    manifest = json.loads((tmp_path / "clean" / "manifest.json").read_text())
    assert manifest["counts"]["label_rows_ignored"] == {"unknown_recording": 0, "label_not_in_classes": 0, "no_overlap": 0}


def test_merge_keeps_the_counts_without_the_labels_file(walk_data, tmp_path):
    """`merge` reads no input: the workers' parts carry what the intervals file gave, so the merged
    dataset equals one run's even where the labels file is not reachable."""
    src = sorted((walk_data / "data" / "subject01").glob("*.csv"))[:2]
    (tmp_path / "data").mkdir()
    for path, name in zip(src, ["r1", "r2"]):
        shutil.copy(path, tmp_path / "data" / f"{name}.csv")
    (tmp_path / "intervals.csv").write_text("recording,start_s,end_s,label\nr1,5,20,W\nghost,1,2,W\nr2,1,30,sit\nr2,100000,100001,W\n")
    yaml = pipeline(tmp_path, "merge", "{from: intervals, path: intervals.csv, classes: [W]}", paths='"data/*.csv"')
    run(yaml, tmp_path / "one", WHOLE)
    parts = []
    for i in range(2):
        out = tmp_path / f"part{i}"
        motionprep("run", yaml, "--worker", f"{i}/2", "--out", out, "--quiet")
        parts.append(out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    p = subprocess.run([BIN, "merge", str(tmp_path / "merged"), *map(str, parts)], capture_output=True, text=True, cwd=elsewhere)
    assert p.returncode == 0, p.stderr
    one = json.loads((tmp_path / "one" / "manifest.json").read_text())
    merged = json.loads((tmp_path / "merged" / "manifest.json").read_text())
    assert merged["counts"] == one["counts"]
    assert one["counts"]["label_rows_ignored"] == {"unknown_recording": 1, "label_not_in_classes": 1, "no_overlap": 1}
    assert sum("row(s) of" in l for l in p.stderr.splitlines() if l.startswith("motionprep: warning:")) == 3
