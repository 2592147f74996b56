"""Every code block in README.md and docs/*.md that claims to run is run (issue #29 point 5).

Which blocks claim to run: those fenced as `yaml`, `python`, `sh`, `console` or `swift`, unless the
line before the fence is `<!-- not run: REASON -->` (the reason is required, and a marked block is
listed in the test's output as skipped, with it). Blocks without a language, `text` and `json` are
outputs and formats, not claims. How each kind runs:

- `python`: in the venv (h5py, numpy, torch, webdataset and the motionprep package), in a copy of
  the repository's sample project where `motionprep run pipelines/walk.yaml` has written
  `build/walk` (as shards when the block reads shards) and `motionprep apply` has written
  `applied` and `build/walk-new`; the block must exit 0.
- `sh`: with bash -e in such a copy, the binary first on PATH; exit 0.
- `console`: every `$ ` line runs in order (bash, the same copy); each must exit 0, and every output
  line the document shows before a `…` must appear in what the command printed, with numbers
  allowed to differ (the data here is synthetic).
- `yaml`: a whole pipeline (`version:` and `inputs:`) is checked with `motionprep validate` where it
  stands, in pipelines/; a fragment (a list of inputs, `inputs:`, `transforms:`, an iio `layout:`)
  is completed into a pipeline with the sample's other keys; an expectations file
  (`min_windows:` …) goes to `motionprep validate build/walk --expect`. A pipeline must be valid:
  exit 0, or 66 when the only errors are inputs that match no file (or folder) on this machine (the formats'
  examples point at data a user has); never 78 (a pipeline problem).
- `swift`: the live library's snippets need an app around them (a model, a sensor callback, an
  Apple bundle); they carry the marker, and examples/live (built and run by `make test`) is the
  code that compiles.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import BIN, motionprep

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = {"yaml", "python", "sh", "console", "swift"}
MARK = re.compile(r"^<!-- not run: (.+?) -->$")


def blocks():
    """(file, line, language, text, reason-or-None) for every block that could claim to run."""
    out = []
    for path in DOCS:
        lines = path.read_text().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"^```(\w+)\s*$", lines[i])
            if m:
                j = i + 1
                while j < len(lines) and not lines[j].startswith("```"):
                    j += 1
                if m.group(1) in RUNNABLE:
                    mark = MARK.match(lines[i - 1].strip()) if i else None
                    out.append((path.relative_to(ROOT).as_posix(), i + 1, m.group(1),
                                "\n".join(lines[i + 1:j]) + "\n", mark.group(1) if mark else None))
                i = j
            i += 1
    return out


BLOCKS = blocks()


def test_the_documents_have_code_to_run():
    kinds = {b[2] for b in BLOCKS if b[4] is None}
    assert {"yaml", "python", "sh", "console"} <= kinds, kinds
    for file, line, lang, _, reason in BLOCKS:
        if lang == "swift":
            assert reason, f"{file}:{line}: a swift block needs `<!-- not run: … -->` (see this test's docstring)"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The repository's sample project (pipelines/, datasets/, expectations/) with build/walk and
    applied written, plus the same with build/walk as zstd shards, plus Sensor Logger recordings for
    the README's session."""
    base = tmp_path_factory.mktemp("docs")
    made = {}
    for kind in ("hdf5", "shards"):
        d = base / kind
        d.mkdir()
        for name in ("pipelines", "datasets", "expectations"):
            shutil.copytree(ROOT / name, d / name)
        if kind == "shards":
            text = (d / "pipelines/walk.yaml").read_text()
            new = re.sub(r"(\n\s*type:\s*)hdf5", r"\1shards", text)
            if new == text:
                new = text.replace("output:\n", "output:\n  type: shards\n", 1)
            (d / "pipelines/walk.yaml").write_text(new)
        motionprep("run", "pipelines/walk.yaml", "--quiet", cwd=d)
        new_files = d / "new-phone-files"
        new_files.mkdir()
        for csv in sorted((d / "datasets/walk").glob("*/*.csv"))[:2]:
            shutil.copy(csv, new_files / csv.name)
        motionprep("apply", "build/walk", "new-phone-files", "--out", "applied", "--quiet", cwd=d)
        shutil.copytree(new_files, d / "new-recordings")
        motionprep("apply", "build/walk", "new-recordings", "--out", "build/walk-new", "--quiet", cwd=d)
        made[kind] = d
    # The README's phone session: Sensor Logger exports in ACTIVITY/PERSON/EXPORT folders.
    rec = base / "session"
    synth = base / "synth"
    motionprep("synth", "--out", synth, "--format", "sensorlogger", "--subjects", 3, "--minutes", 2,
               "--recordings", 2, "--seed", 5)
    for n, subject in enumerate(sorted(p.name for p in synth.iterdir() if p.is_dir())):
        person = ["alice", "bob", "carol"][n]
        for k, export in enumerate(sorted((synth / subject).iterdir())):
            activity = ["Walking", "Sitting"][k % 2]
            shutil.copytree(export, rec / "recordings" / activity / person / f"rec-0{k + 1}")
    made["session"] = rec
    return made


def fresh_copy(src, dst):
    shutil.copytree(src, dst, symlinks=True)
    return dst


def environment(bin_dir):
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}:{Path(sys.executable).parent}:{env.get('PATH', '')}"
    return env


RUNS = [b for b in BLOCKS if b[4] is None]
SKIPS = [b for b in BLOCKS if b[4] is not None]


def ident(b):
    return f"{b[0]}:{b[1]}:{b[2]}"


@pytest.mark.parametrize("block", SKIPS, ids=ident)
def test_marked_not_run(block):
    pytest.skip(f"{ident(block)} is marked not run: {block[4]}")


def run_python(block, cwd):
    proc = subprocess.run([sys.executable, "-c", block[3]], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{ident(block)} failed:\n{block[3]}\n{proc.stdout}\n{proc.stderr}"


def run_sh(block, cwd, env):
    proc = subprocess.run(["bash", "-e", "-c", block[3]], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{ident(block)} failed:\n{block[3]}\n{proc.stdout}\n{proc.stderr}"


def skeleton(line):
    """A line with its numbers made generic: the data here is not the document's."""
    return re.sub(r"\d+(\.\d+)?", "#", line.strip())


def run_console(block, cwd, env):
    commands, shown = [], []
    for line in block[3].split("\n"):
        if line.startswith("$ "):
            commands.append(line[2:])
            shown.append([])
        elif commands and line.strip():
            shown[-1].append(line)
    for command, expected in zip(commands, shown):
        if command.startswith("make install"):
            continue  # the tests install the binary themselves (bin_dir on PATH; test_install.py)
        proc = subprocess.run(["bash", "-e", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{ident(block)}: `{command}` exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
        got = {skeleton(l) for l in (proc.stdout + proc.stderr).split("\n")}
        for line in expected:
            if line.strip() == "…":
                break
            assert skeleton(line) in got, (f"{ident(block)}: `{command}` did not print a line like\n  {line}\n"
                                           f"it printed:\n{proc.stdout}{proc.stderr}")


SAMPLE = yaml.safe_load((ROOT / "pipelines/walk.yaml").read_text())


def complete_pipeline(text):
    """The YAML text of a whole pipeline: `text` as written, with the sample's keys it lacks."""
    stripped = text.lstrip()
    if stripped.startswith("- "):
        text = "inputs:\n" + text
    elif stripped.startswith("layout:"):
        text = ("inputs:\n  - type: iio\n    paths: [\"../datasets/iio/**/*.bin\"]\n"
                + "".join("    " + l + "\n" for l in text.rstrip("\n").split("\n")))
    doc = yaml.safe_load(text) or {}
    rest = {k: v for k, v in SAMPLE.items() if k not in doc and k != "output"}
    if "output" not in doc:
        rest["output"] = {"path": "../build/doc"}
    if "labels" in doc and "features" not in doc:
        rest.pop("features", None)
    if doc.get("inputs") and SAMPLE["inputs"][0]["type"] != doc["inputs"][0].get("type"):
        # the sample's labels (`from: rows`, MotionCollector's W/T) belong to its own input
        if "labels" not in doc:
            rest.pop("labels", None)
        rest.pop("magnitude", None)
        rest.pop("features", None)
    return text.rstrip("\n") + "\n" + yaml.safe_dump(rest, sort_keys=True)


def run_yaml(block, cwd, env):
    text = block[3]
    doc = yaml.safe_load(text)
    if isinstance(doc, dict) and ("min_windows" in doc or "required_classes" in doc):
        (cwd / "doc-expect.yaml").write_text(text)
        proc = subprocess.run([BIN, "validate", "build/walk", "--expect", "doc-expect.yaml"], cwd=cwd, capture_output=True, text=True)
        assert proc.returncode in (0, 1), f"{ident(block)}: the expectations file was refused ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
        return
    whole = isinstance(doc, dict) and "version" in doc and "inputs" in doc
    path = cwd / "pipelines" / "doc-block.yaml"
    path.write_text(text if whole else complete_pipeline(text))
    proc = subprocess.run([BIN, "validate", path], cwd=cwd, capture_output=True, text=True)
    errors = [l for l in proc.stderr.split("\n") if ": error: " in l]
    if proc.returncode == 66:
        absent = ("matches no file", "no folder matched by")
        assert errors and all(any(a in l for a in absent) for l in errors), f"{ident(block)}:\n{path.read_text()}\n{proc.stderr}"
    else:
        assert proc.returncode == 0, f"{ident(block)} is not a valid pipeline ({proc.returncode}):\n{path.read_text()}\n{proc.stderr}"


@pytest.mark.parametrize("block", RUNS, ids=ident)
def test_block_runs(block, project, bin_dir, tmp_path):
    env = environment(bin_dir)
    lang, text = block[2], block[3]
    if lang == "console":
        run_console(block, fresh_copy(project["session"], tmp_path / "p"), env)
        return
    src = project["shards"] if (".tar" in text and lang == "python") else project["hdf5"]
    cwd = fresh_copy(src, tmp_path / "p")
    if lang == "python":
        run_python(block, cwd)
    elif lang == "sh":
        for out in re.findall(r"motionprep apply .*?--out (\S+)", text):
            shutil.rmtree(cwd / out)  # the block writes it anew
        run_sh(block, cwd, env)
    elif lang == "yaml":
        run_yaml(block, cwd, env)
    else:
        pytest.fail(f"{ident(block)}: no runner for {lang}")
