"""`run --worker auto` (issue 26 point 2, docs/scale.md "`--worker auto`"): each scheduler's
environment gives the right slot (the same part as `--worker I/N`, so `merge` takes it); bad
values and an environment without any array task are usage errors (64) in one sentence."""
import json
import os
import subprocess

import pytest

from conftest import BIN, motionprep

SCHEDULER_VARS = ("SLURM_", "SGE_", "PBS_", "LSB_", "AWS_BATCH_", "JOB_COMPLETION_INDEX")

PIPELINE = """\
version: 1
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {rate_hz: 20}
window: {length_s: 2, stride_s: 2}
labels: {map: {W: walk, T: turn}}
split: {fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
"""


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCHEDULER_VARS)}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_auto(work, env, *args):
    return subprocess.run([BIN, "run", str(work / "p.yaml"), "--worker", "auto", "--json", *map(str, args)],
                          env=env, capture_output=True, text=True)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("auto")
    motionprep("synth", "--out", root / "data", "--subjects", 3, "--minutes", 0.5, "--seed", 5)
    (root / "p.yaml").write_text(PIPELINE)
    return root


CASES = [
    ("slurm 0-2", dict(SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_MAX=2, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_STEP=1),
     (), "1/3", "from SLURM_ARRAY_TASK_ID=1, MIN=0, COUNT=3"),
    ("slurm 1-3", dict(SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=3, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_STEP=1),
     (), "1/3", "from SLURM_ARRAY_TASK_ID=2, MIN=1, COUNT=3"),
    ("slurm 0-4:2", dict(SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_MAX=4, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_STEP=2),
     (), "2/3", "from SLURM_ARRAY_TASK_ID=4, MIN=0, STEP=2, COUNT=3"),
    ("sge 1-5:2", dict(SGE_TASK_ID=3, SGE_TASK_FIRST=1, SGE_TASK_LAST=5, SGE_TASK_STEPSIZE=2),
     (), "1/3", "from SGE_TASK_ID=3, FIRST=1, LAST=5, STEPSIZE=2"),
    ("pbs pro", dict(PBS_ARRAY_INDEX=2), ("--workers", 3), "2/3", "from PBS_ARRAY_INDEX=2, --workers 3"),
    ("torque", dict(PBS_ARRAYID=0), ("--workers", 3), "0/3", "from PBS_ARRAYID=0, --workers 3"),
    ("lsf", dict(LSB_JOBINDEX=3), ("--workers", 3), "2/3", "from LSB_JOBINDEX=3, --workers 3"),
    ("aws batch", dict(AWS_BATCH_JOB_ARRAY_INDEX=1), ("--workers", 3), "1/3", "from AWS_BATCH_JOB_ARRAY_INDEX=1, --workers 3"),
    ("kubernetes", dict(JOB_COMPLETION_INDEX=0), ("--workers", 3), "0/3", "from JOB_COMPLETION_INDEX=0, --workers 3"),
]


@pytest.mark.parametrize("name,env,args,slot,origin", CASES, ids=[c[0] for c in CASES])
def test_each_scheduler_gives_the_slot(work, name, env, args, slot, origin):
    out = work / "parts" / name.replace(" ", "-").replace(":", "s")
    p = run_auto(work, clean_env(**env), "--out", out, *args)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["worker"] == slot and summary["worker_from"] == origin
    assert f"worker {slot} ({origin})" in p.stderr
    part = json.loads((out / "part.json").read_text())
    assert f"{part['worker']}/{part['workers']}" == slot


def test_auto_parts_merge_as_explicit_ones(work):
    """Parts of `--worker auto` (a Slurm --array=1-3) merge into the bytes of a single run."""
    motionprep("run", work / "p.yaml", "--out", work / "single", "--quiet")
    parts = []
    for i in (1, 2, 3):
        out = work / "slurm13" / f"task-{i}"
        p = run_auto(work, clean_env(SLURM_ARRAY_TASK_ID=i, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=3, SLURM_ARRAY_TASK_COUNT=3),
                     "--out", out, "--quiet")
        assert p.returncode == 0, p.stderr
        parts.append(out)
    motionprep("merge", work / "merged", *parts, "--quiet")
    for f in ("SHA256SUMS", "manifest.json", "train.h5", "validation.h5", "test.h5"):
        assert (work / "single" / f).read_bytes() == (work / "merged" / f).read_bytes(), f


BAD = [
    ("non-numeric", dict(SLURM_ARRAY_TASK_ID="two", SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=3), (),
     "read SLURM_ARRAY_TASK_ID=`two`, which is not a whole number"),
    ("step 0", dict(SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_STEP=0), (),
     "SLURM_ARRAY_TASK_STEP is 0, but a step is at least 1"),
    ("sge step 0", dict(SGE_TASK_ID=2, SGE_TASK_FIRST=1, SGE_TASK_LAST=3, SGE_TASK_STEPSIZE=0), (),
     "SGE_TASK_STEPSIZE is 0, but a step is at least 1"),
    ("index out of range", dict(SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=3), (),
     "worker index 3, which is not from 0 to 2"),
    ("k8s out of range", dict(JOB_COMPLETION_INDEX=3), ("--workers", 3), "worker index 3, which is not from 0 to 2"),
    ("lsf from 1", dict(LSB_JOBINDEX=-1), ("--workers", 3), "an LSF array numbers its tasks from 1, not -1"),
    ("no count", dict(AWS_BATCH_JOB_ARRAY_INDEX=0), (),
     "found AWS_BATCH_JOB_ARRAY_INDEX=0 (an AWS Batch array job), which gives no worker count: add `--workers N`"),
    ("disagreeing count", dict(SLURM_ARRAY_TASK_ID=0, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=3), ("--workers", 4),
     "an array of 3 tasks, but `--workers` is 4"),
    ("uneven list", dict(SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=7, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_STEP=1), (),
     "the array is not an evenly spaced range"),
]


def one_sentence(stderr):
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("name,env,args,message", BAD, ids=[c[0] for c in BAD])
def test_bad_values_exit_64_in_one_sentence(work, name, env, args, message):
    p = run_auto(work, clean_env(**env), "--out", work / "bad", *args)
    assert p.returncode == 64, p.stderr
    line = one_sentence(p.stderr)
    assert "option `--worker auto` of `motionprep run`" in line and message in line, line
    assert not (work / "bad").exists()


def test_none_set_lists_every_variable(work):
    p = run_auto(work, clean_env(SGE_TASK_ID="undefined", LSB_JOBINDEX=0), "--out", work / "none")
    assert p.returncode == 64, p.stderr
    line = one_sentence(p.stderr)
    for var in ("SLURM_ARRAY_TASK_ID", "SGE_TASK_ID", "PBS_ARRAY_INDEX", "PBS_ARRAYID", "LSB_JOBINDEX",
                "AWS_BATCH_JOB_ARRAY_INDEX", "JOB_COMPLETION_INDEX"):
        assert f"`{var}`" in line, line
    assert "give `--worker I/N`" in line


def test_workers_goes_only_with_auto(work):
    p = subprocess.run([BIN, "run", str(work / "p.yaml"), "--workers", "3"], env=clean_env(), capture_output=True, text=True)
    assert p.returncode == 64 and "option `--workers` of `motionprep run` goes only with `--worker auto`" in p.stderr
    p = subprocess.run([BIN, "run", str(work / "p.yaml"), "--worker", "0/3", "--workers", "3"], env=clean_env(), capture_output=True, text=True)
    assert p.returncode == 64 and "already names the count" in p.stderr
    p = subprocess.run([BIN, "run", str(work / "p.yaml"), "--worker", "sometimes"], env=clean_env(), capture_output=True, text=True)
    assert p.returncode == 64 and "or `auto`" in p.stderr
