"""Issue 29 points 1–3: slow streams straight out of `init` (AndroSensor at 2 Hz, Sensor Logger's Barometer), `validate
PIPELINE` refusing what `run` would refuse and `run`'s "no window" naming the cause (docs/signal.md, "Gaps and
segments"); Sensor Logger folders named after the activity (docs/commands.md, "init"); one person's data split by
recording with `split.stratify: label`, and the `split_missing_class` warning (docs/pipeline.md, "Splits and folds").
Split assignments are recomputed in Python (tests/python/reference.py) from what h5py reads back."""
import json
import os
import subprocess
import sys
from pathlib import Path

import h5py

import reference as ref
from conftest import motionprep

SPLITS = ("train", "validation", "test")


def androsensor_2hz(root, subjects=1, minutes=2):
    """AndroSensor files logging at 2 Hz, as the app does by default: synth's files (~50 Hz) with one row kept per
    500 ms of their `Time since start in ms` column; header lines (sep=; and the names) as written."""
    motionprep("synth", "--format", "androsensor", "--out", root / "raw", "--subjects", subjects, "--minutes", minutes,
               "--seed", 3)
    for f in sorted((root / "raw").rglob("*.csv")):
        lines = f.read_text(encoding="utf-8").splitlines()
        kept, due = lines[:2], 0
        for line in lines[2:]:
            t = int(line.split(";")[-2])
            if t >= due:
                kept.append(line)
                due += 500
        dest = root / "data" / f.relative_to(root / "raw")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("\n".join(kept) + "\n", encoding="utf-8")


def init(root, data="data", name="p.yaml"):
    p = motionprep("init", data, "-o", name, cwd=root)
    return p.stdout, (root / name).read_text()


def windows(out):
    """split → list of (class name, recording name), one per window."""
    manifest = json.loads((out / "manifest.json").read_text())
    got = {}
    for split in SPLITS:
        with h5py.File(out / f"{split}.h5", "r") as f:
            got[split] = [(manifest["classes"][y] if y >= 0 else None, manifest["recordings"][r])
                          for y, r in zip(f["y"][...], f["recording_index"][...])]
    return manifest, got


def unsealed(text):
    """The pipeline without init's seal line, to edit it."""
    return "".join(l for l in text.splitlines(keepends=True) if not l.startswith("# motionprep: sha256"))


# Point 1: slow streams.

def test_androsensor_at_2_hz_runs_straight_out_of_init(tmp_path):
    androsensor_2hz(tmp_path, subjects=2)
    out, yaml = init(tmp_path)
    assert "  - type: androsensor\n" in yaml
    # 2.5 intervals of 0.5 s, rounded up to 0.1 s.
    assert "  max_gap_s: {default: 0.2, AndroSensor: 1.3}" in yaml, yaml
    assert motionprep("validate", "p.yaml", cwd=tmp_path).stdout.strip() == "p.yaml: ok"
    motionprep("run", "p.yaml", "--quiet", cwd=tmp_path)
    assert "ok" in motionprep("validate", tmp_path / "build" / "p").stdout
    manifest = json.loads((tmp_path / "build" / "p" / "manifest.json").read_text())
    assert manifest["sample_rate_hz"] == 2
    assert sum(s["num_windows"] for s in manifest["splits"].values()) > 50
    assert manifest["pipeline"]["resolved"]["resample"]["max_gap_s"] == {"default": 0.2, "AndroSensor": 1.3}


def test_validate_and_run_name_a_stream_slower_than_max_gap_s_and_the_value_that_works(tmp_path):
    androsensor_2hz(tmp_path)
    init(tmp_path)
    yaml = unsealed((tmp_path / "p.yaml").read_text())
    bad = "\n".join(l for l in yaml.splitlines() if not l.startswith("  max_gap_s:")) + "\n"
    (tmp_path / "q.yaml").write_text(bad.replace("build/p", "build/q"))
    first = sorted((tmp_path / "data").rglob("*.csv"))[0].relative_to(tmp_path)

    v = motionprep("validate", "q.yaml", cwd=tmp_path, check=False)
    assert v.returncode == 65, v.stderr   # data that does not match the pipeline (docs/commands.md, "validate")
    assert v.stderr.startswith(f"{first}: error: stream `AndroSensor`: its samples are 0.5 s apart (median interval), "
                               "more than its `resample.max_gap_s` of 0.25 s"), v.stderr
    assert "  set `max_gap_s: {default: 0.25, AndroSensor: 1.3}` in `resample` of q.yaml" in v.stderr
    assert "q.yaml: ok" not in v.stdout

    r = motionprep("run", "q.yaml", "--quiet", cwd=tmp_path, check=False)
    assert r.returncode == 65
    assert "error: the run produced no window: stream `AndroSensor` (in " in r.stderr, r.stderr
    assert "more than its `max_gap_s` of 0.25 s" in r.stderr
    assert "set `max_gap_s: {default: 0.25, AndroSensor: 1.3}` in `resample` of q.yaml" in r.stderr
    assert not (tmp_path / "build" / "q").exists()

    # The value named works.
    fixed = bad.replace("build/p", "build/r").replace("resample:\n", "resample:\n  max_gap_s: {default: 0.25, AndroSensor: 1.3}\n")
    (tmp_path / "r.yaml").write_text(fixed)
    assert motionprep("validate", "r.yaml", cwd=tmp_path).stdout.strip() == "r.yaml: ok"
    motionprep("run", "r.yaml", "--quiet", cwd=tmp_path)


def test_sensor_logger_barometer_gets_its_max_gap_s_before_it_is_added(tmp_path):
    motionprep("synth", "--format", "sensorlogger", "--out", tmp_path / "data", "--subjects", 3, "--minutes", 0.5,
               "--seed", 2)
    _, yaml = init(tmp_path)
    assert "    sensors: [Accelerometer, Gyroscope]   # also in every recording: " in yaml and "Barometer" in yaml
    line = next(l for l in yaml.splitlines() if l.startswith("  max_gap_s:"))
    assert line.startswith("  max_gap_s: {default: 0.2, Barometer: "), line
    # Add the Barometer, as init's comment suggests: it validates and runs as it is.
    edited = unsealed(yaml).replace("    sensors: [Accelerometer, Gyroscope]", "    sensors: [Accelerometer, Gyroscope, Barometer]")
    (tmp_path / "b.yaml").write_text(edited.replace("build/p", "build/b"))
    assert motionprep("validate", "b.yaml", cwd=tmp_path).stdout.strip() == "b.yaml: ok"
    motionprep("run", "b.yaml", "--quiet", cwd=tmp_path)
    manifest = json.loads((tmp_path / "build" / "b" / "manifest.json").read_text())
    assert any(c["name"].startswith("baro") or "pressure" in c["name"] for c in manifest["channels"]), manifest["channels"]
    assert sum(s["num_windows"] for s in manifest["splits"].values()) > 0


# Point 2: Sensor Logger folders named after the activity.

def sensor_logger_by_activity(root, folders, minutes=0.5):
    """Sensor Logger exports moved to `data/{folder}` (e.g. `iphone13/Squats`), one export per folder."""
    motionprep("synth", "--format", "sensorlogger", "--out", root / "raw", "--subjects", 1, "--recordings", len(folders),
               "--minutes", minutes, "--seed", 6)
    exports = sorted((root / "raw" / "subject01").iterdir())
    for export, folder in zip(exports, folders):
        dest = root / "data" / folder
        dest.parent.mkdir(parents=True, exist_ok=True)
        export.rename(dest)


def test_sensor_logger_folders_named_after_the_activity_are_labelled(tmp_path):
    sensor_logger_by_activity(tmp_path, ["iphone13/Squats", "iphone13/Walking", "iphone13/Sitting"])
    out, yaml = init(tmp_path)
    assert ("labels:   # from the name of each recording's folder: one activity per folder\n  from: path\n"
            "  template: \"{dir}\"\n  classes: [Sitting, Squats, Walking]\n") in yaml, yaml
    assert "labels: from the recording folders' names (`Sitting`, `Squats`, `Walking`)" in out, out
    assert motionprep("validate", "p.yaml", cwd=tmp_path).stdout.strip() == "p.yaml: ok"
    motionprep("run", "p.yaml", "--quiet", cwd=tmp_path)
    manifest, got = windows(tmp_path / "build" / "p")
    assert manifest["classes"] == ["Sitting", "Squats", "Walking"]
    labelled = [w for ws in got.values() for w in ws]
    assert labelled and all(c == r.split("/")[-1] for c, r in labelled)
    assert {c for c, _ in labelled} == {"Sitting", "Squats", "Walking"}


def test_numbered_activity_folders_are_mapped_to_their_activity(tmp_path):
    sensor_logger_by_activity(tmp_path, ["iphone13/Squats_1", "iphone13/Squats_2", "iphone13/Walking-2024-05-01"])
    _, yaml = init(tmp_path)
    assert ("  map: {Squats_1: Squats, Squats_2: Squats, Walking-2024-05-01: Walking}   # the folder name without its number\n"
            "  classes: [Squats, Walking]\n") in yaml, yaml
    # One recording of Walking: nothing can be held out of it, and the comment says so.
    assert "  fractions: {train: 1, validation: 0, test: 0}   # 1 recording in the smallest class: nothing to hold out" in yaml
    motionprep("run", "p.yaml", "--quiet", cwd=tmp_path)
    _, got = windows(tmp_path / "build" / "p")
    assert {c for c, _ in got["train"]} == {"Squats", "Walking"}


def test_init_says_why_no_labels_were_found(tmp_path):
    motionprep("synth", "--format", "sensorlogger", "--out", tmp_path / "data", "--subjects", 3, "--minutes", 0.25,
               "--seed", 2)
    out, yaml = init(tmp_path)
    assert "# no labels were found" in yaml
    assert ("no labels: no file has a label column, and no folder names activities (folders `subject01`, `subject02`, "
            "`subject03` are subjects; recording folders `rec-01`, `rec-02` are numbered names of one kind)\n") in out, out


# Point 3: one person's data, stratified by class.

def test_one_subject_gets_a_stratified_split_with_every_class_in_every_split(tmp_path):
    folders = [f"iphone13/{a}_{i}" for a, n in (("Squats", 3), ("Walking", 4), ("Sitting", 3)) for i in range(1, n + 1)]
    sensor_logger_by_activity(tmp_path, folders, minutes=0.25)
    out, yaml = init(tmp_path)
    assert ("  # 1 subject: none to hold out, so recordings are split (validation and test then measure new recordings "
            "of the same person, not new people)\n  by: recording\n") in yaml, yaml
    assert "  stratify: label" in yaml
    assert "  fractions: {train: 0.34, validation: 0.33, test: 0.33}   # 3 recordings in the smallest class: 1 / 1 / 1" in yaml
    assert "split: 1 subject, so by recording, stratified by label (3 classes, 3 recording(s) in the smallest)" in out
    assert motionprep("validate", "p.yaml", cwd=tmp_path).stdout.strip() == "p.yaml: ok"
    r = motionprep("run", "p.yaml", "--quiet", cwd=tmp_path)
    assert "split_missing_class" not in r.stderr, r.stderr
    manifest, got = windows(tmp_path / "build" / "p")
    for split in SPLITS:
        assert {c for c, _ in got[split]} == {"Sitting", "Squats", "Walking"}, split
    assert manifest["pipeline"]["resolved"]["split"]["stratify"] == "label"


STRATA = """\
version: 1
inputs:
  - type: sensorlogger
    paths: ["data/*/*"]
    sensors: [Accelerometer]
resample: {{rate_hz: 50}}
window: {{length_s: 2, stride_s: 2}}
labels: {{from: path, template: "{{dir}}", map: {map}, classes: [Squats, Walking]}}
split: {split}
{extra}output: {{type: hdf5, path: build/{name}}}
"""

MAP = "{Squats_1: Squats, Squats_2: Squats, Squats_3: Squats, Squats_4: Squats, Walking_1: Walking, Walking_2: Walking}"


def strata_data(tmp_path):
    sensor_logger_by_activity(tmp_path, [f"phone/Squats_{i}" for i in range(1, 5)] + [f"phone/Walking_{i}" for i in (1, 2)],
                              minutes=0.2)


def run_strata(root, name, split, extra="", check=True):
    (root / f"{name}.yaml").write_text(STRATA.format(split=split, extra=extra, name=name, map=MAP))
    return motionprep("run", f"{name}.yaml", "--quiet", cwd=root, check=check)


def recording_splits(got):
    out = {}
    for split, ws in got.items():
        for _, r in ws:
            assert out.setdefault(r, split) == split
    return out


def test_stratify_is_exact_per_class_and_deterministic_from_the_seed(tmp_path):
    strata_data(tmp_path)
    fractions = (0.5, 0.25, 0.25)
    split = "{by: recording, seed: %d, allocation: exact, stratify: label, fractions: {train: 0.5, validation: 0.25, test: 0.25}}"
    run_strata(tmp_path, "s1", split % 11)
    run_strata(tmp_path, "s1b", split % 11)
    manifest, got = windows(tmp_path / "build" / "s1")
    assigned = recording_splits(got)
    assert recording_splits(windows(tmp_path / "build" / "s1b")[1]) == assigned
    # By hand: Squats has 4 recordings → 2 / 1 / 1; Walking 2 → 1 / 0.5 / 0.5 = 1 / 0 / 0 with one left over, which
    # goes to the larger remainder, ties to the earlier split: validation → 1 / 1 / 0.
    per_class = {c: [sum(1 for r, s in assigned.items() if r.split("/")[-1].startswith(c) and s == split) for split in SPLITS]
                 for c in ("Squats", "Walking")}
    assert per_class == {"Squats": [2, 1, 1], "Walking": [1, 1, 0]}
    # Which recordings: each class's by u of "{seed}:{recording}" (reference.exact_splits within the class).
    for c in ("Squats", "Walking"):
        members = [r for r in manifest["recordings"] if r.split("/")[-1].startswith(c)]
        expected = ref.exact_splits(11, members, fractions)
        assert {r: assigned[r] for r in members} == expected
    # Another seed: the same counts per class.
    run_strata(tmp_path, "s2", split % 12)
    other = recording_splits(windows(tmp_path / "build" / "s2")[1])
    assert sorted(other.values()) == sorted(assigned.values())
    assert manifest["pipeline"]["resolved"]["split"]["stratify"] == "label"
    assert "stratify" not in manifest["split_policy"]
    # The dataset validates, and its resolved pipeline reads back (apply uses it).
    assert "ok" in motionprep("validate", tmp_path / "build" / "s1").stdout
    motionprep("apply", tmp_path / "build" / "s1", "data/phone/Squats_1", "--out", tmp_path / "applied", cwd=tmp_path)
    # The Python package (this worktree's python/) verifies it: `stratify` is in the resolved split only.
    code = ("import motionprep; ds = motionprep.open_dataset(%r, verify=True); "
            "print([ds.class_counts(s).tolist() for s in ('train', 'validation', 'test')])" % str(tmp_path / "build" / "s1"))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "python" / "src"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr


def test_a_split_without_a_class_others_have_is_warned_about_and_can_be_silenced(tmp_path):
    strata_data(tmp_path)
    # Not stratified: 6 recordings by count, 0.34/0.33/0.33 → 2 / 2 / 2, Walking's 2 recordings in at most two splits.
    split = "{by: recording, seed: 5, allocation: exact, fractions: {train: 0.34, validation: 0.33, test: 0.33}}"
    found = False
    for seed in range(5, 40):
        r = run_strata(tmp_path, f"w{seed}", split.replace("seed: 5", f"seed: {seed}"))
        manifest, got = windows(tmp_path / "build" / f"w{seed}")
        lacking = [s for s in SPLITS if got[s] and "Walking" not in {c for c, _ in got[s]}]
        if not lacking:
            assert "split_missing_class" not in r.stderr
            continue
        found = True
        # validate PIPELINE sees it before the run: with `from: path` every recording's class and split are known.
        v = motionprep("validate", f"w{seed}.yaml", cwd=tmp_path)
        for s in lacking:
            assert (f"w{seed}.yaml: warning: split `{s}` gets no recording of class(es) `Walking`, which other splits get\n"
                    "  `split.stratify: label` (with `allocation: exact`) shares out each class's recordings on their own\n"
                    "  if this is intended, add `split_missing_class` to `ignore_warnings`") in v.stderr, v.stderr
        assert v.stdout.strip().startswith(f"w{seed}.yaml: ok (")
        for s in lacking:
            assert (f"warning: split `{s}` has no window of class(es) `Walking`, which other splits have; "
                    "`split.stratify: label` (with `allocation: exact` and `labels.from: path`) shares out each class's "
                    "recordings on their own\n  if this is intended, add `split_missing_class` to `ignore_warnings`") in r.stderr, r.stderr
        quiet = run_strata(tmp_path, f"q{seed}", split.replace("seed: 5", f"seed: {seed}"), extra="ignore_warnings: [split_missing_class]\n")
        assert "split_missing_class" not in quiet.stderr and "has no window of class" not in quiet.stderr
        assert "gets no recording of class" not in motionprep("validate", f"q{seed}.yaml", cwd=tmp_path).stderr
        break
    assert found


def test_stratify_is_refused_where_it_cannot_be_exact_and_absent_unless_set(tmp_path):
    strata_data(tmp_path)
    (tmp_path / "h.yaml").write_text(STRATA.format(split="{by: recording, stratify: label}", extra="", name="h", map=MAP))
    p = motionprep("validate", "h.yaml", cwd=tmp_path, check=False)
    assert p.returncode == 78 and p.stderr.startswith("h.yaml:9:34: error: `split.stratify: label` shares out each class's recordings by count") and "add `allocation: exact`" in p.stderr, p.stderr
    rows = STRATA.format(split="{by: recording, allocation: exact, stratify: label}", extra="", name="rows", map=MAP)
    rows = rows.replace('labels: {from: path, template: "{dir}", map: ' + MAP + ', classes: [Squats, Walking]}',
                        "labels: {from: intervals, path: labels.csv, classes: [Squats, Walking]}")
    (tmp_path / "labels.csv").write_text("recording,start_s,end_s,label\n")
    (tmp_path / "rows.yaml").write_text(rows)
    p = motionprep("validate", "rows.yaml", cwd=tmp_path, check=False)
    assert p.returncode == 78 and "needs one label per recording known before the run, from `labels.from: path`, but the labels come from `intervals`" in p.stderr, p.stderr
    # Without `stratify`, the resolved pipeline has no such key (pipeline.sha256 as before).
    run_strata(tmp_path, "plain", "{by: recording, allocation: exact}")
    manifest = json.loads((tmp_path / "build" / "plain" / "manifest.json").read_text())
    assert "stratify" not in manifest["pipeline"]["resolved"]["split"]


def test_recording_folders_named_after_people_are_not_taken_for_activities(tmp_path):
    sensor_logger_by_activity(tmp_path, ["study/alice", "study/bob", "study/carol"], minutes=0.2)
    out, yaml = init(tmp_path)
    assert "# no labels were found" in yaml and "from: path" not in yaml
    assert ("recording folders `alice`, `bob`, `carol` may be activities or people: no name recurs in two folders and "
            "most hold no activity word; if they name activities, set `labels: {from: path, template: \"{dir}\", "
            "classes: [...]}`)") in out, out
    # The same names under two subjects' folders are activities, whatever the names.
    sensor_logger_by_activity(tmp_path / "two", ["s1/Deadlift", "s1/Bench", "s2/Deadlift", "s2/Bench"], minutes=0.2)
    out, yaml = init(tmp_path / "two")
    assert "  template: \"{dir}\"\n  classes: [Bench, Deadlift]\n" in yaml, yaml
    assert 'subject: "{dir:2}"' in yaml


def test_activity_folders_without_subject_folders_get_a_stratified_split(tmp_path):
    # data/Walking/walking-1.csv …: every recording its own subject, labels from the folder.
    for a, activity in enumerate(["Walking", "Sitting", "Squats"]):
        for i in range(1, 4):
            rows = [f"{k * 20},{(k * 7 + a) % 11 / 10:.4f},{(k * 3 + i) % 13 / 10:.4f}" for k in range(500)]
            path = tmp_path / "data" / activity / f"{activity.lower()}-{i}.csv"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("timestamp_ms,ax,ay\n" + "\n".join(rows) + "\n")
    out, yaml = init(tmp_path)
    assert ("  # no subject folders: each recording is its own subject, so recordings are split (check: if one person "
            "recorded several, they may sit in several splits)\n  by: recording\n") in yaml, yaml
    assert "  stratify: label" in yaml
    assert "split: no subject folders, so by recording, stratified by label (3 classes, 3 recording(s) in the smallest)" in out
    assert motionprep("validate", "p.yaml", cwd=tmp_path).stdout.strip() == "p.yaml: ok"
    motionprep("run", "p.yaml", "--quiet", cwd=tmp_path)
    _, got = windows(tmp_path / "build" / "p")
    for split in SPLITS:
        assert {c for c, _ in got[split]} == {"Sitting", "Squats", "Walking"}, split
