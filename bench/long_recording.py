"""`make bench`, part 2: one long recording, read in one block (the "whole" case: the file's
parsed columns held at once) and streamed in 8 MiB blocks (issue 8). Peak memory of the streamed
run must not grow with the recording's length; both runs must write the same bytes. Prints a
table; not a pass/fail test (but it exits non-zero when the outputs differ).

  long_recording.py [--minutes 120,480,1440] [--jobs J]
"""
import argparse
import hashlib
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MOTIONPREP_BIN", os.path.join(ROOT, ".build/release/motionprep"))
WORK = os.path.join(ROOT, "build", "bench", "long")

PIPELINE = """\
version: 1
name: long
inputs:
  - type: motioncollector
    paths: ["{data}/**/*.csv"]
    sensors: [A, G]
resample: {{rate_hz: 50, max_gap_s: 0.2, antialias: {antialias}}}
window: {{length_s: 2.56, stride_s: 1.28}}
labels: {{map: {{W: walk, T: turn}}, min_fraction: 0.8}}
features: [mean, std, min, max, rms, dominant_freq_hz]
magnitude: [acc]
split: {{fractions: {{train: 1.0, validation: 0.0, test: 0.0}}}}
output: {{type: hdf5, path: out}}
"""


def run(pipeline, out, env, jobs):
    start = time.perf_counter()
    p = subprocess.Popen([BIN, "run", pipeline, "--quiet", "--jobs", str(jobs), "--out", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **env})
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"motionprep run {pipeline} failed:\n{p.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def digest(folder):
    h = hashlib.sha256()
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            h.update(name.encode() + b"\0" + hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", default="120,480,1440")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    a = ap.parse_args()
    print("one long MotionCollector recording (A + G rows at ~100 Hz each), walk pipeline at 50 Hz:")
    print(f"  {'recording':22s} {'antialias':9s} {'one block: s / CPU s / RSS':>30s} {'streamed: s / CPU s / RSS':>32s}  same bytes")
    same_everywhere = True
    for minutes in [float(m) for m in a.minutes.split(",")]:
        data = os.path.join(WORK, f"data-{minutes:g}min")
        if not os.path.isdir(data):
            subprocess.run([BIN, "synth", "--out", data, "--subjects", "1", "--recordings", "1", "--minutes",
                            str(minutes), "--seed", "3", "--sensors", "A,G"], check=True, stdout=subprocess.DEVNULL)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(data) for f in fs)
        for antialias in ("false", "true"):
            pipeline = os.path.join(WORK, f"long-{minutes:g}-{antialias}.yaml")
            with open(pipeline, "w") as f:
                f.write(PIPELINE.format(data=data, antialias=antialias))
            outs = {}
            cells = []
            for mode, env in (("whole", {"MOTIONPREP_STREAM_BLOCK_BYTES": str(1 << 40)}), ("streamed", {})):
                out = os.path.join(WORK, f"out-{minutes:g}-{antialias}-{mode}")
                wall, cpu, rss = run(pipeline, out, env, a.jobs)
                outs[mode] = digest(out)
                cells.append(f"{wall:6.1f} / {cpu:6.1f} / {rss:6.0f} MiB")
            same = outs["whole"] == outs["streamed"]
            same_everywhere &= same
            label = f"{minutes / 60:g} h, {size / 1e6:.0f} MB"
            print(f"  {label:22s} {antialias:9s} {cells[0]:>30s} {cells[1]:>32s}  {'yes' if same else 'NO'}")
    if not same_everywhere:
        sys.exit("one block and 8 MiB blocks wrote different bytes")


if __name__ == "__main__":
    main()
