"""A real one-node Slurm (Debian's slurm-wlm and munge; issue 26 point 3): munged, `slurmctld -D`
and `slurmd -D` started as root with a generated slurm.conf and all their state under a temporary
folder, on free ports. The shipped examples/slurm scripts are submitted as they are (only
resources overridden on the sbatch command line) as arrays `--array=0-2`, `1-3` and `0-4:2`, each
followed by the merge script with `--dependency=afterok:JOBID`. Every merged dataset equals a
single `run` byte for byte and passes `validate`. The fixture stops exactly the daemons it
started, by pid, also when a test fails."""
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import BIN, motionprep

ROOT = Path(__file__).resolve().parents[2]
FILES = ["SHA256SUMS", "manifest.json", "train.h5", "validation.h5", "test.h5"]
PIPELINE = """\
version: 1
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {rate_hz: 50, max_gap_s: 0.2}
window: {length_s: 2.56, stride_s: 1.28}
labels: {map: {W: walk, T: turn}, min_fraction: 0.8}
features: [mean, std]
split: {fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
"""
DAEMONS = {"munged": "/usr/sbin/munged", "mungekey": "/usr/sbin/mungekey", "slurmctld": "/usr/sbin/slurmctld",
           "slurmd": "/usr/sbin/slurmd", "sbatch": "/usr/bin/sbatch", "squeue": "/usr/bin/squeue", "sinfo": "/usr/bin/sinfo",
           "scancel": "/usr/bin/scancel"}
TIMEOUT = 120


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def wait_for(what, check, timeout=TIMEOUT, logs=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.5)
    tails = "\n".join(f"--- {p}:\n{p.read_text()[-3000:] if p.exists() else '(none)'}" for p in logs)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{tails}")


class Cluster:
    def __init__(self, tmp: Path, bin_dir: Path):
        self.tmp = tmp
        self.procs = []  # (name, Popen) of the daemons this fixture started
        self.env = dict(os.environ, SLURM_CONF=str(tmp / "slurm.conf"),
                        PATH=f"{bin_dir}:{os.environ['PATH']}")
        for k in [k for k in self.env if k.startswith("SLURM_") and k != "SLURM_CONF"]:
            del self.env[k]
        self.logs = [tmp / "munged.log", tmp / "slurmctld.log", tmp / "slurmd.log"]

    def start(self):
        t = self.tmp
        (t / "munge").mkdir(mode=0o700)
        key = t / "munge" / "munge.key"
        subprocess.run([DAEMONS["mungekey"], "--create", "--keyfile", str(key)], check=True, capture_output=True)
        os.chmod(key, 0o600)
        sock = t / "munge" / "munge.socket"
        self.spawn("munged", [DAEMONS["munged"], "--foreground", "--force", f"--socket={sock}", f"--key-file={key}",
                              f"--pid-file={t / 'munge' / 'munged.pid'}", f"--log-file={t / 'munged.log'}",
                              f"--seed-file={t / 'munge' / 'munged.seed'}"])
        wait_for("munged's socket", sock.exists, 30, self.logs)
        ctl_port, d_port = free_ports(2)
        for d in ("state", "spool"):
            (t / d).mkdir()
        name = "mp" + uuid.uuid4().hex[:6]
        (t / "slurm.conf").write_text(f"""\
ClusterName={name}
SlurmctldHost=localhost
SlurmctldPort={ctl_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={t / 'state'}
SlurmdSpoolDir={t / 'spool'}
SlurmctldPidFile={t / 'slurmctld.pid'}
SlurmdPidFile={t / 'slurmd.pid'}
SlurmctldLogFile={t / 'slurmctld.log'}
SlurmdLogFile={t / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
        conf = str(t / "slurm.conf")
        self.spawn("slurmctld", [DAEMONS["slurmctld"], "-D", "-i", "-f", conf])
        self.spawn("slurmd", [DAEMONS["slurmd"], "-D", "-N", "localhost", "-f", conf])

        def idle():
            self.check_alive()
            p = subprocess.run([DAEMONS["sinfo"], "-h", "-N", "-o", "%T"], env=self.env, capture_output=True, text=True)
            return p.returncode == 0 and p.stdout.strip() in ("idle", "mixed", "allocated")
        wait_for("the node to be idle", idle, 60, self.logs)

    def spawn(self, name, argv):
        log = open(self.tmp / f"{name}.stdio", "w")
        self.procs.append((name, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env)))

    def check_alive(self):
        for name, p in self.procs:
            if p.poll() is not None:
                tail = (self.tmp / f"{name}.stdio").read_text()[-2000:]
                raise AssertionError(f"{name} exited with {p.returncode}:\n{tail}")

    def sbatch(self, *args):
        p = subprocess.run([DAEMONS["sbatch"], "--parsable", *map(str, args)], env=self.env, capture_output=True, text=True, cwd=self.tmp)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip().split(";")[0]

    def pending(self, jobs):
        p = subprocess.run([DAEMONS["squeue"], "-h", "-o", "%i %T %r", "--jobs", ",".join(jobs)], env=self.env,
                           capture_output=True, text=True)
        return [l for l in p.stdout.splitlines() if l.split()[1] not in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT")]

    def stop(self):
        if self.procs:
            subprocess.run([DAEMONS["scancel"], "--full", "--user", "root"], env=self.env, capture_output=True)
        # Exactly the daemons started here, by pid, last started first.
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(5)
        self.procs = []


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, bin_dir):
    if os.geteuid() != 0:
        pytest.skip("a one-node Slurm (munged, slurmctld, slurmd) must be started as root")
    missing = [name for name, path in DAEMONS.items() if not os.access(path, os.X_OK)]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (apt-get install slurm-wlm munge; `make deps` does it)")
    c = Cluster(tmp_path_factory.mktemp("slurm"), bin_dir)
    try:
        c.start()
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("slurm-data")
    motionprep("synth", "--out", root / "data", "--subjects", 4, "--recordings", 2, "--minutes", 1, "--seed", 13)
    (root / "p.yaml").write_text(PIPELINE)
    motionprep("run", root / "p.yaml", "--quiet", "--out", root / "single")
    return root


def test_shipped_scripts_on_a_real_slurm(cluster, work):
    resources = ["--cpus-per-task=1", "--mem=100M", "--time=00:10:00"]
    runs = []
    for array in ("0-2", "1-3", "0-4:2"):
        out = work / ("walk-" + array.replace(":", "s").replace("-", "to")) / "walk"
        out.parent.mkdir()
        array_job = cluster.sbatch(*resources, f"--array={array}", f"--output={out.parent}/array-%A_%a.log",
                                   ROOT / "examples/slurm/motionprep-array.sbatch", work / "p.yaml", out)
        merge_job = cluster.sbatch(*resources, f"--dependency=afterok:{array_job}", f"--output={out.parent}/merge.log",
                                   ROOT / "examples/slurm/motionprep-merge.sbatch", out)
        runs.append((array, out, array_job, merge_job))
    jobs = [j for r in runs for j in r[2:]]

    def done():
        cluster.check_alive()
        left = cluster.pending(jobs)
        # A merge whose array failed would wait forever (the bug of issue 26): fail at once instead.
        stuck = [l for l in left if "DependencyNeverSatisfied" in l]
        assert not stuck, f"{stuck}\n" + "\n".join(f.read_text() for r in runs for f in r[1].parent.glob("*.log"))
        return not left
    wait_for("the arrays and merges to finish", done, TIMEOUT, cluster.logs + [r[1].parent / "merge.log" for r in runs])

    for array, out, array_job, _ in runs:
        logs = sorted(out.parent.glob("array-*.log"))
        assert len(logs) == 3, (array, logs)
        merge_log = (out.parent / "merge.log").read_text() if (out.parent / "merge.log").exists() else "(no merge.log)"
        assert (out / "manifest.json").exists(), f"--array={array}: no merged dataset\n{merge_log}\n" + "\n".join(l.read_text() for l in logs)
        for f in FILES:
            assert (out / f).read_bytes() == (work / "single" / f).read_bytes(), (array, f)
        # The first task printed the merge command (without a worker count).
        assert any(f"motionprep-merge.sbatch {out}" in l.read_text() for l in logs), array
        v = motionprep("validate", out, check=False)
        assert v.returncode == 0, v.stdout + v.stderr
