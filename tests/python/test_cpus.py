"""The `--jobs` default is the CPUs this process may run on (issue 26 point 1, docs/scale.md
"CPUs"): the affinity mask (`taskset`), `SLURM_CPUS_PER_TASK`, and a real cgroup CPU quota that the
test creates as root and removes afterwards. The `--json` summaries of run, apply and merge say
`"jobs"`, the text summaries where it came from."""
import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from conftest import BIN, motionprep

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

CORES = len(os.sched_getaffinity(0))


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "SLURM_CPUS_PER_TASK"}
    env.update({k: str(v) for k, v in extra.items()})
    return env


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("cpus")
    motionprep("synth", "--out", root / "data", "--subjects", 2, "--minutes", 0.5, "--seed", 3)
    (root / "p.yaml").write_text(PIPELINE)
    return root


def run(prefix, work, name, *args, env=None):
    out = work / name
    p = subprocess.run([*prefix, BIN, "run", str(work / "p.yaml"), "--out", str(out), "--json", *map(str, args)],
                       env=env or clean_env(), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), p.stderr


def test_taskset_one_cpu_means_one_job(work):
    if shutil.which("taskset") is None:
        pytest.skip("taskset (util-linux) is not installed")
    summary, err = run(["taskset", "-c", "0"], work, "taskset")
    assert summary["jobs"] == 1 and summary["jobs_from"] == "CPU affinity", summary
    assert "jobs: 1 (CPU affinity)" in err, err
    # merge and apply say it too.
    parts = []
    for i in range(2):
        parts.append(work / f"part{i}")
        motionprep("run", work / "p.yaml", "--worker", f"{i}/2", "--out", parts[-1], "--quiet")
    m = subprocess.run(["taskset", "-c", "0", BIN, "merge", str(work / "merged"), *map(str, parts), "--json"],
                       env=clean_env(), capture_output=True, text=True)
    assert m.returncode == 0, m.stderr
    assert json.loads(m.stdout)["jobs"] == 1 and "jobs: 1 (CPU affinity)" in m.stderr
    a = subprocess.run(["taskset", "-c", "0", BIN, "apply", str(work / "taskset"), str(work / "data"), "--out", str(work / "applied"), "--json"],
                       env=clean_env(), capture_output=True, text=True)
    assert a.returncode == 0, a.stderr
    assert json.loads(a.stdout)["jobs"] == 1 and "jobs: 1 (CPU affinity)" in a.stderr


def test_without_limits_all_allowed_cpus(work):
    summary, err = run([], work, "free")
    assert summary["jobs"] == CORES, summary
    assert f"jobs: {CORES} (" in err


def test_slurm_cpus_per_task(work):
    if CORES < 2:
        pytest.skip(f"this machine allows {CORES} CPU: SLURM_CPUS_PER_TASK=1 would not be the smallest limit")
    summary, err = run([], work, "slurm", env=clean_env(SLURM_CPUS_PER_TASK=1))
    assert summary["jobs"] == 1 and summary["jobs_from"] == "SLURM_CPUS_PER_TASK", summary
    assert "jobs: 1 (SLURM_CPUS_PER_TASK)" in err
    # --jobs wins over everything.
    summary, err = run([], work, "explicit", "--jobs", 3, env=clean_env(SLURM_CPUS_PER_TASK=1))
    assert summary["jobs"] == 3 and "jobs: 3 (--jobs)" in err


def mounts():
    for line in Path("/proc/self/mounts").read_text().splitlines():
        dev, point, fstype, opts = line.split()[:4]
        yield point, fstype, opts.split(",")


class Cgroup:
    """A child cgroup made for one test and removed afterwards (its processes have exited)."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir()

    def remove(self):
        if self.path.exists():
            # Anything still inside (a run that hung) is moved back to the parent first.
            for pid in (self.path / "cgroup.procs").read_text().split():
                try:
                    (self.path.parent / "cgroup.procs").write_text(pid)
                except OSError:
                    pass
            self.path.rmdir()


def run_in_cgroup(cg: Path, work, name):
    """`sh -c 'echo $$ > cgroup.procs; exec motionprep …'`: the shell joins the cgroup, then becomes motionprep."""
    out = work / name
    script = f'echo $$ > "{cg}/cgroup.procs" && exec "$0" "$@"'
    p = subprocess.run(["sh", "-c", script, BIN, "run", str(work / "p.yaml"), "--out", str(out), "--json"],
                       env=clean_env(), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), p.stderr


def require_root():
    if os.geteuid() != 0:
        pytest.skip("creating a cgroup needs root")


def test_cgroup_v2_quota(work):
    require_root()
    v2 = [point for point, fstype, _ in mounts() if fstype == "cgroup2"]
    if not v2:
        pytest.skip("no cgroup2 file system is mounted (/proc/self/mounts)")
    root = Path(v2[0])
    controllers = (root / "cgroup.controllers").read_text().split()
    if "cpu" not in controllers:
        pytest.skip(f"the cpu controller is not available in cgroup v2 here: {root}/cgroup.controllers lists "
                    f"{controllers or 'nothing'} (it is bound to a cgroup v1 hierarchy; test_cgroup_v1_quota covers that)")
    if root != Path("/sys/fs/cgroup"):
        pytest.skip(f"cgroup v2 is mounted at {root}, not /sys/fs/cgroup (a hybrid layout motionprep reads v1 from)")
    own = Path(str(root) + next(l[3:] for l in Path("/proc/self/cgroup").read_text().splitlines() if l.startswith("0::")))
    if "cpu" not in (own / "cgroup.subtree_control").read_text().split():
        try:
            (own / "cgroup.subtree_control").write_text("+cpu")
        except OSError as e:
            pytest.skip(f"cannot enable the cpu controller for children of {own} ({e.strerror}: a cgroup with processes "
                        "may not enable it, and moving this sandbox's processes is not the test's to do)")
    cg = Cgroup(own / f"motionprep-test-{uuid.uuid4().hex[:8]}")
    try:
        (cg.path / "cpu.max").write_text("50000 100000")
        summary, err = run_in_cgroup(cg.path, work, "cgroup2")
    finally:
        cg.remove()
    assert summary["jobs"] == 1 and summary["jobs_from"] == "cgroup quota 0.5 CPUs", summary
    assert "jobs: 1 (cgroup quota 0.5 CPUs)" in err
    assert not cg.path.exists()


def test_cgroup_v1_quota(work):
    require_root()
    cpu = [point for point, fstype, opts in mounts() if fstype == "cgroup" and "cpu" in opts]
    if not cpu:
        pytest.skip("no cgroup v1 hierarchy with the cpu controller is mounted (/proc/self/mounts)")
    mount = Path(cpu[0])
    if mount not in (Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup/cpu,cpuacct")):
        pytest.skip(f"the cgroup v1 cpu controller is mounted at {mount}, where motionprep does not look")
    if CORES < 2:
        pytest.skip(f"this machine allows {CORES} CPU: a quota of 0.5 would not be the smallest limit")
    rel = next(l.split(":", 2)[2] for l in Path("/proc/self/cgroup").read_text().splitlines()
               if "cpu" in l.split(":")[1].split(","))
    parent = mount / rel.lstrip("/")
    try:
        cg = Cgroup(parent / f"motionprep-test-{uuid.uuid4().hex[:8]}")
    except OSError as e:
        pytest.skip(f"cannot create a cgroup under {parent}: {e.strerror}")
    try:
        (cg.path / "cpu.cfs_period_us").write_text("100000")
        (cg.path / "cpu.cfs_quota_us").write_text("50000")
        summary, err = run_in_cgroup(cg.path, work, "cgroup1")
    finally:
        cg.remove()
    assert summary["jobs"] == 1 and summary["jobs_from"] == "cgroup quota 0.5 CPUs", summary
    assert "jobs: 1 (cgroup quota 0.5 CPUs)" in err
    assert not cg.path.exists()
