"""`make bench`: motionprep next to the pandas/numpy/h5py and polars/numpy/h5py ways of doing the
same job, on the same generated data and the same cores. Prints tables; nothing here is a
pass/fail test, except that the peers must write the windows motionprep writes (else it exits 1:
the comparison would not be of equal work).

  bench.py [--subjects N] [--minutes M] [--recordings R] [--precision fixed6|full] [--jobs J]
           [--reps R] [--e2e-reps K] [--skip-stages] [--skip-e2e] [--check-values]

The workload is `motionprep synth`'s MotionCollector files, values rounded to 6 decimals
(`--precision fixed6`, the default: 749 MB at the default size) or written as phones write
doubles, 17 significant digits (`--precision full`: `synth --precision full`, 1.39 GB).

The end-to-end peers, each a whole process timed from outside (wall, CPU of the process and its
children, peak RSS of the largest process), in K interleaved rounds:
  motionprep            `motionprep run` of the pipeline below
  pandas                bench/pandas_job.py: read_csv of every column, multiprocessing, numpy, h5py
  pandas usecols        bench/pandas_usecols_job.py: the six needed columns with dtypes, otherwise the same
  polars                bench/polars_job.py: pl.read_csv (multi-threaded) of the six columns, numpy, h5py
  polars parse only     bench/polars_job.py --parse-only: just pl.read_csv of every file, J at a time
  duckdb parse only     bench/duckdb_job.py: one read_csv of every file, J threads, and one aggregate
                        over it (counts of the six columns, sums of the four numbers) that needs
                        every field of the six columns parsed
Both parse-only peers must report as many rows as the files have lines after their headers.
The peers share their numpy stages and h5py writer (bench/peer_stages.py).
"""
import argparse
import glob
import json
import os
import subprocess
import statistics
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MOTIONPREP_BIN", os.path.join(ROOT, ".build/release/motionprep"))
BENCH = os.path.join(os.path.dirname(BIN), "motionprep-bench")
WORK = os.path.join(ROOT, "build", "bench")


def launcher():
    """bench/timed.c built with cc (see its comment for why), or None when no C compiler works."""
    src = os.path.join(ROOT, "bench", "timed.c")
    exe = os.path.join(WORK, "timed")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        os.makedirs(WORK, exist_ok=True)
        try:
            subprocess.run(["cc", "-O2", "-o", exe, src], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"  (bench/timed.c not built, so peak RSS includes bench.py's own: {getattr(e, 'stderr', b'') or e})")
            return None
    return exe


LAUNCHER = None


def run_timed(cmd, **kw):
    """Runs cmd, returns (wall seconds, peak RSS MiB of the largest process, stdout, CPU seconds of
    the process and the children it waited for, e.g. pool workers)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen([LAUNCHER, *cmd] if LAUNCHER else cmd, stdout=out, stderr=err, **kw)
        # wait4 gives this process's own resource usage (with its waited-for children), not that
        # of every earlier subprocess of the benchmark.
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        text = err.read().decode()
        if status != 0:
            sys.exit(f"{' '.join(cmd)} failed ({os.waitstatus_to_exitcode(status)}):\n{text}")
        if LAUNCHER:
            r = json.loads(text.rstrip().rsplit("\n", 1)[-1])
            return r["wall"], r["maxrss_kib"] / 1024, out.read().decode(), r["cpu"]
        return wall, usage.ru_maxrss / 1024, out.read().decode(), usage.ru_utime + usage.ru_stime


def row(name, value, unit, baseline=None, base_unit=None, lower_is_better=False):
    ratio = ""
    if baseline:
        r = baseline / value if lower_is_better else value / baseline
        ratio = f"{r:6.2f}×" if r < 1 else f"{r:6.1f}×"
    b = f"{baseline:12.1f} {base_unit or unit}" if baseline else ""
    print(f"  {name:44s} {value:12.1f} {unit:14s} {b:28s} {ratio}")


def fastfloat_reference(files, reps):
    """Builds bench/fastfloat_ref.cpp (g++ -O2) and runs it on `files`: its JSON, or None when
    g++ or the fast_float headers are missing (`make deps` installs libfast-float-dev)."""
    src = os.path.join(ROOT, "bench", "fastfloat_ref.cpp")
    exe = os.path.join(WORK, "fastfloat_ref")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        os.makedirs(WORK, exist_ok=True)
        try:
            subprocess.run(["g++", "-O2", "-std=c++17", "-o", exe, src], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"  (fast_float reference not built: {getattr(e, 'stderr', b'') or e})")
            return None
    return json.loads(subprocess.run([exe, "--reps", str(reps), *files],
                                     capture_output=True, text=True, check=True).stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--subjects", type=int, default=20)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--recordings", type=int, default=1, help="recordings per subject")
    ap.add_argument("--precision", choices=("fixed6", "full"), default="fixed6",
                    help="how synth writes the values: 6 decimals, or 17 significant digits as phones do")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=9, help="timed ingest passes; the best CPU time counts")
    ap.add_argument("--e2e-reps", type=int, default=3, help="interleaved rounds of the end-to-end runs")
    ap.add_argument("--check-values", action="store_true",
                    help="compare the peers' x and features with motionprep's on any workload "
                         f"(by default only up to {VALUE_CHECK_WINDOWS} windows)")
    ap.add_argument("--skip-stages", action="store_true")
    ap.add_argument("--skip-e2e", action="store_true")
    ap.add_argument("--transforms-only", action="store_true",
                    help="only the transforms' cost (the UCI chain with ÷ without, and against the scipy peer)")
    a = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    rec = "" if a.recordings == 1 else f"x{a.recordings}"
    full = "" if a.precision == "fixed6" else f"-{a.precision}"
    data = os.path.join(WORK, f"data-{a.subjects}x{a.minutes:g}{rec}{full}")
    if not os.path.isdir(data):
        subprocess.run([BIN, "synth", "--out", data, "--subjects", str(a.subjects), "--minutes", str(a.minutes),
                        "--recordings", str(a.recordings), "--seed", "1", "--precision", a.precision], check=True)
    files = sorted(glob.glob(os.path.join(data, "**", "*.csv"), recursive=True))
    size = sum(os.path.getsize(f) for f in files)
    digits = "values to 6 decimals" if a.precision == "fixed6" else "values with 17 significant digits"
    print(f"workload: {len(files)} MotionCollector recordings, {size / 1e6:.0f} MB ({a.subjects} subjects × "
          f"{a.recordings} × {a.minutes:g} min, interleaved A/G/M/D rows, {digits}), {a.jobs} cores; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    if a.transforms_only:
        transforms(a, data)
        return
    if a.skip_stages:
        pass
    elif not os.path.exists(BENCH):
        print(f"  (stage timings skipped: {BENCH} is not built; `swift build -c release` builds it)\n")
    else:
        stages(a, files, size)
    if not a.skip_e2e:
        end_to_end(a, data, files, size)


def stages(a, files, size):
    """Each stage on one core: motionprep-bench against pandas / numpy / TSFEL."""
    print(f"  {'stage':44s} {'motionprep':>27s} {'pandas / numpy':>28s}")

    # Ingest, one core: motionprep's reader vs pandas.read_csv (C engine), and vs a bare C++
    # fast_float loop on the same files (bench/fastfloat_ref.cpp), the yardstick that moves with
    # the machine. motionprep and fast_float: best CPU time (user + system) of --reps passes,
    # taken in three interleaved rounds so that a busy spell on a shared machine hits both.
    rounds = 3
    per_round = max(1, -(-a.reps // rounds))
    ing, ff = None, None
    for _ in range(rounds):
        r = json.loads(subprocess.run([BENCH, "ingest", "--reps", str(per_round), *files],
                                      capture_output=True, text=True, check=True).stdout)
        if ing is None or r["cpu_mb_per_s"] > ing["cpu_mb_per_s"]:
            ing = r
        f = fastfloat_reference(files, per_round)
        if f and (ff is None or f["cpu_mb_per_s"] > ff["cpu_mb_per_s"]):
            ff = f
    import pandas as pd
    for f in files[:2]:
        pd.read_csv(f)  # warm
    start = time.perf_counter()
    for f in files:
        pd.read_csv(f, engine="c")
    pd_s = time.perf_counter() - start
    row("ingest MB/s per core", ing["cpu_mb_per_s"], "MB/s", size / 1e6 / pd_s)
    row("ingest rows/s per core (millions)", ing["rows"] / ing["cpu_seconds"] / 1e6, "M rows/s")
    if ff:
        row("  vs bare fast_float loop (C++, g++ -O2)", ing["cpu_mb_per_s"], "MB/s", ff["cpu_mb_per_s"], "MB/s")

    # Linear resampling of a 3-axis stream, one core, vs np.interp.
    rs = json.loads(subprocess.run([BENCH, "resample"], capture_output=True, text=True, check=True).stdout)
    n = 360_000
    rng = np.random.default_rng(1)
    t = np.cumsum(0.01 + (rng.random(n) - 0.5) * 0.001)
    v = np.sin(np.arange(n)[:, None] * 0.01 * np.arange(1, 4))
    grid = t[0] + np.arange(int((t[-1] - t[0]) * 100)) / 100
    start = time.perf_counter()
    for _ in range(10):
        np.stack([np.interp(grid, t, v[:, c]) for c in range(3)], axis=1).astype(np.float32)
    np_s = time.perf_counter() - start
    row("linear resampling, output samples/s (M)", rs["output_samples_per_s"] / 1e6, "M/s", 10 * len(grid) * 3 / np_s / 1e6, "M/s")

    # Features, full catalogue, 128 × 10 windows, one core.
    ft = json.loads(subprocess.run([BENCH, "features"], capture_output=True, text=True, check=True).stdout)
    sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
    from test_features_antialias import numpy_features  # the reference definitions
    w = rng.standard_normal((200, 128, 10)).astype(np.float32)
    start = time.perf_counter()
    for i in range(len(w)):
        for c in range(10):
            numpy_features(w[i, :, c], 50.0)
    np_wps = len(w) / (time.perf_counter() - start)
    row("features, windows/s per core (128×10, all)", ft["windows_per_s"], "windows/s", np_wps, "windows/s")
    try:
        import tsfel
        cfg = {d: tsfel.get_features_by_domain(d)[d] for d in ("statistical", "temporal", "spectral")}
        small = w[:20]
        start = time.perf_counter()
        for i in range(len(small)):
            tsfel.time_series_features_extractor(cfg, small[i], fs=50, verbose=0)
        ts_wps = len(small) / (time.perf_counter() - start)
        row("  vs TSFEL (statistical+temporal+spectral)", ft["windows_per_s"], "windows/s", ts_wps, "windows/s")
    except ImportError:
        print("  (TSFEL not installed: `.venv/bin/pip install tsfel` to compare)")



def end_to_end(a, data, files, size):
    """motionprep run against its peers (see the module's docstring), same files, same cores,
    whole processes in interleaved rounds; then `validate` of the dataset just written."""
    global LAUNCHER
    LAUNCHER = launcher()
    pipeline = os.path.join(WORK, "bench.yaml")
    with open(pipeline, "w") as f:
        f.write(PIPELINE.format(paths=json.dumps([f"{os.path.relpath(data, WORK)}/**/*.csv"]), out="out-motionprep"))
    py, here = sys.executable, os.path.dirname(os.path.abspath(__file__))
    out = {name: os.path.join(WORK, f"out-{slug}") for name, slug in
           (("pandas", "pandas"), ("pandas usecols", "pandas-usecols"), ("polars", "polars"))}
    tools = [
        ("motionprep", [BIN, "run", pipeline, "--jobs", str(a.jobs), "--quiet"]),
        ("pandas", [py, os.path.join(here, "pandas_job.py"), data, out["pandas"], str(a.jobs)]),
        ("pandas usecols", [py, os.path.join(here, "pandas_usecols_job.py"), data, out["pandas usecols"], str(a.jobs)]),
        ("polars", [py, os.path.join(here, "polars_job.py"), data, out["polars"], str(a.jobs)]),
        ("polars parse only", [py, os.path.join(here, "polars_job.py"), "--parse-only", data, str(a.jobs)]),
        ("duckdb parse only", [py, os.path.join(here, "duckdb_job.py"), data, str(a.jobs)]),
    ]
    parsers = ("polars parse only", "duckdb parse only")
    rows = data_rows(files)
    runs = {name: [] for name, _ in tools}
    inside = {name: [] for name in parsers}
    loads = []
    for k in range(max(1, a.e2e_reps)):
        for name, cmd in tools:
            loads.append(os.getloadavg()[0])
            wall, rss, stdout, cpu = run_timed(cmd)
            runs[name].append((wall, cpu, rss))
            if name in parsers:
                report = json.loads(stdout)
                if report["rows"] != rows:
                    sys.exit(f"bench: {name} read {report['rows']} rows, the files have {rows}: "
                             "the comparison would not be of equal work")
                inside[name].append(report["seconds"])
        if k == 0:
            check_equal_work(a, out)
            print(f"  equal work: both parse-only peers read all {rows} rows of the {len(files)} files")

    def med(name, i):
        return statistics.median(r[i] for r in runs[name])

    def rng(name, i, fmt="{:.1f}"):
        v = sorted(r[i] for r in runs[name])
        return fmt.format(v[0]) if len(v) == 1 else f"{fmt.format(v[0])}–{fmt.format(v[-1])}"

    print(f"\n  end to end: A + G at 50 Hz, windows 128/64, labels from rows, acc_mag, 5 features, HDF5; "
          f"{len(runs['motionprep'])} interleaved rounds, load average (1 min) {min(loads):.1f}–{max(loads):.1f}")
    print(f"  {'':20s} {'wall s (min–max)':>18s} {'median':>7s} {'MB/s':>6s} {'CPU s':>12s} {'peak RSS MiB':>14s}"
          f"  {'wall ÷ motionprep, per round: median; min–max (CPU ÷)':s}")
    for name, _ in tools:
        ratios = sorted(r[0] / m[0] for r, m in zip(runs[name], runs["motionprep"]))
        cpu = sorted(r[1] / m[1] for r, m in zip(runs[name], runs["motionprep"]))
        ratio = "" if name == "motionprep" else \
            f"×{statistics.median(ratios):.2f}; {ratios[0]:.2f}–{ratios[-1]:.2f}   " \
            f"(CPU ×{statistics.median(cpu):.2f}; {cpu[0]:.2f}–{cpu[-1]:.2f})"
        print(f"  {name:20s} {rng(name, 0):>18s} {med(name, 0):7.2f} {size / 1e6 / med(name, 0):6.0f} "
              f"{rng(name, 1):>12s} {rng(name, 2, '{:.0f}'):>14s}  {ratio}")
    for name in parsers:
        pr = sorted(inside[name])
        print(f"  {'':20s} ({name} inside the process, without interpreter start and imports: "
              f"{pr[0]:.2f}–{pr[-1]:.2f} s)")
    usecols = sorted(u[0] / m[0] for u, m in zip(runs["pandas usecols"], runs["motionprep"]))
    print(f"  targets (per round, median; min–max): end to end ≥ 3× pandas usecols (issue #25): ×{statistics.median(usecols):.2f} "
          f"({usecols[0]:.2f}–{usecols[-1]:.2f})")
    for name in parsers:
        parse = sorted(m[0] / p[0] for p, m in zip(runs[name], runs["motionprep"]))
        within = sorted(m[0] / p for p, m in zip(inside[name], runs["motionprep"]))
        print(f"    motionprep's run ≤ {name}: {statistics.median(parse):.2f} of it ({parse[0]:.2f}–{parse[-1]:.2f}), "
              f"{statistics.median(within):.2f} of its time inside the process ({within[0]:.2f}–{within[-1]:.2f})")

    # Peak memory against the number of recordings: the same pipeline on a quarter of them.
    part = files[:max(1, len(files) // 4)]
    if len(part) < len(files):
        sub = os.path.join(WORK, "bench-part.yaml")
        with open(sub, "w") as f:
            f.write(PIPELINE.format(paths=json.dumps([os.path.relpath(p, WORK) for p in part]), out="out-motionprep-part"))
        rss = [run_timed([BIN, "run", sub, "--jobs", str(a.jobs), "--quiet"])[1] for _ in range(2)]
        print(f"  motionprep peak RSS on {len(part)} of the {len(files)} recordings: {min(rss):.0f}–{max(rss):.0f} MiB "
              f"(all {len(files)}: {rng('motionprep', 2, '{:.0f}')} MiB)")

    transforms(a, data)

    # validate: the dataset just written, against h5py + numpy + hashlib doing the same reading
    # (SHA-256 of every file, every array decoded, NaN/Inf counted, class counts, train moments).
    ds = os.path.join(WORK, "out-motionprep")
    out_bytes = sum(os.path.getsize(f) for f in glob.glob(os.path.join(ds, "*.h5")))
    mp_val = min(run_timed([BIN, "validate", ds, "--jobs", str(a.jobs)])[0] for _ in range(3))
    py_val = min(run_timed([sys.executable, "-c", VALIDATE_PY, ds])[0] for _ in range(3))
    print()
    row("validate (HDF5), MB/s of dataset files", out_bytes / 1e6 / mp_val, "MB/s", out_bytes / 1e6 / py_val, "MB/s")
    print(f"  {'':44s} {out_bytes / 1e6:.0f} MB in {mp_val:.2f} s vs {py_val:.2f} s (h5py + numpy, one core)")


# The end-to-end pipeline: walk-style (pipelines/walk.yaml) without antialias and with five
# features; bench/peer_stages.py is the same in numpy.
PIPELINE = """version: 1
name: bench
inputs:
  - type: motioncollector
    paths: {paths}
    sensors: [A, G]
resample: {{rate_hz: 50, max_gap_s: 0.2, antialias: false}}
window: {{length_s: 2.56, stride_s: 1.28}}
labels: {{from: rows, min_fraction: 0.8, map: {{W: walk, T: turn}}, classes: [walk, turn]}}
features: [mean, std, min, max, rms]
magnitude: [acc]
output: {{type: hdf5, path: {out}}}
"""
def transforms(a, data):
    """The UCI HAR chain (pipelines/uci-har-style.yaml) added to the end-to-end pipeline: its cost
    with ÷ without, per run and per megabyte written (issue #25 point 9), and against a scipy peer."""
    global LAUNCHER
    LAUNCHER = LAUNCHER or launcher()
    # Transforms (issue 18, docs/signal.md "Transforms"): the UCI HAR chain added to the same
    # pipeline, with ÷ without, whole processes in interleaved pairs. The chain widens `x` from 7
    # to 24 channels and `features` from 35 to 120, and everything downstream grows with them; the
    # shards row, uncompressed, shows how much of the difference is deflate.
    print()
    rel = json.dumps([f"{os.path.relpath(data, WORK)}/**/*.csv"])
    variants = {}
    for name in ("hdf5", "shards, compression: none"):
        for chain in (False, True):
            path = os.path.join(WORK, f"bench-{'uci' if chain else 'plain'}-{'h5' if name == 'hdf5' else 'tar'}.yaml")
            text = PIPELINE.format(paths=rel, out=f"out-{os.path.basename(path)[:-5]}")
            if name != "hdf5":
                text = text.replace("output: {type: hdf5, path: ", "output: {type: shards, compression: none, path: ")
            if chain:
                text = text.replace("features:", uci_chain() + "features:")
            with open(path, "w") as f:
                f.write(text)
            variants[(name, chain)] = path
    for name in ("hdf5", "shards, compression: none"):
        pairs = []
        for _ in range(max(1, a.e2e_reps)):
            with_chain = run_timed([BIN, "run", variants[(name, True)], "--jobs", str(a.jobs), "--quiet"])
            without = run_timed([BIN, "run", variants[(name, False)], "--jobs", str(a.jobs), "--quiet"])
            mb = written(variants[(name, True)]) / written(variants[(name, False)])
            pairs.append((with_chain[0] / without[0], with_chain[3] / without[3], mb))
        w = sorted(p[0] for p in pairs)
        c = sorted(p[1] for p in pairs)
        per_mb = sorted(p[0] / p[2] for p in pairs)
        print(f"  transforms (the UCI chain) ÷ none, output {name}: wall ×{statistics.median(w):.2f} ({w[0]:.2f}–{w[-1]:.2f}), "
              f"CPU ×{statistics.median(c):.2f}; target (issue 18): ≤ 1.30")
        print(f"    per megabyte written ({pairs[0][2]:.2f}× the bytes): wall ×{statistics.median(per_mb):.2f} "
              f"({per_mb[0]:.2f}–{per_mb[-1]:.2f}); target (issue #25): ≤ 1.15")
    # The UCI chain against a scipy peer (issue #25 point 9): the pandas usecols job with the same
    # chain in scipy (peer_stages.uci_chain: median_filter, butter + sosfiltfilt, the gravity split,
    # jerk, magnitudes) and the same h5py output, whole processes in interleaved pairs.
    peer_env = dict(os.environ, BENCH_CHAIN="uci")
    peer = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pandas_usecols_job.py"),
            data, os.path.join(WORK, "out-scipy-uci"), str(a.jobs)]
    ratios = []
    for _ in range(max(1, a.e2e_reps)):
        ours = run_timed([BIN, "run", variants[("hdf5", True)], "--jobs", str(a.jobs), "--quiet"])[0]
        theirs = run_timed(peer, env=peer_env)[0]
        ratios.append(theirs / ours)
    ratios.sort()
    print(f"  the UCI chain, hdf5: scipy peer ÷ motionprep wall ×{statistics.median(ratios):.2f} "
          f"({ratios[0]:.2f}–{ratios[-1]:.2f}); target (issue #25): ≥ 2.5")


def written(pipeline):
    """Bytes of every file in the dataset folder the bench pipeline `pipeline` writes."""
    out = os.path.join(WORK, "out-" + os.path.basename(pipeline)[:-5])
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)


def uci_chain():
    """The `transforms:` block of pipelines/uci-har-style.yaml (docs/signal.md, "Transforms"), comments
    dropped, to insert before `features`: the chain the repository ships, not a copy of it."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pipelines", "uci-har-style.yaml")
    lines, inside = [], False
    for line in open(path):
        if line.startswith("transforms:"):
            inside = True
        elif inside and line[:1] not in (" ", "\t"):
            break
        if inside:
            lines.append(line.split("#")[0].rstrip() + "\n")
    return "".join(lines)


VALUE_CHECK_WINDOWS = 5000


def data_rows(files):
    """Lines after the header, over all files (every data row ends with a newline)."""
    rows = 0
    for path in files:
        with open(path, "rb") as f:
            rows += sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 24), b"")) - 1
    return rows


def check_equal_work(a, outs):
    """The peers must have written motionprep's windows: the same count, labels and start times
    per recording, and (up to VALUE_CHECK_WINDOWS windows, or with --check-values) the same x and
    features within float32 rounding. Exits 1 when they differ."""
    import h5py

    def load(paths, values):
        parts = []
        for p in paths:
            with h5py.File(p, "r") as f:
                names = np.array([str(n) for n in f.attrs["recording_names"]])
                cols = [names[f["recording_index"][...]], f["start_time_s"][...], f["y"][...]]
                if values:
                    cols += [f["x"][...], f["features"][...]]
                parts.append(cols)
        cols = [np.concatenate(c) for c in zip(*parts)]
        order = np.lexsort((cols[1], cols[0]))
        return [c[order] for c in cols]

    mp_files = sorted(glob.glob(os.path.join(WORK, "out-motionprep", "*.h5")))
    n_mp = 0
    for p in mp_files:
        with h5py.File(p, "r") as f:
            n_mp += f["y"].shape[0]
    values = a.check_values or n_mp <= VALUE_CHECK_WINDOWS
    want = load(mp_files, values)
    for name, out in outs.items():
        got = load([os.path.join(out, "all.h5")], values)
        problems = []
        if len(got[0]) != len(want[0]):
            problems.append(f"{len(got[0])} windows, motionprep {len(want[0])}")
        else:
            if not (got[0] == want[0]).all() or not np.array_equal(got[1], want[1]):
                problems.append("other recordings or start times")
            if not np.array_equal(got[2], want[2]):
                problems.append(f"{np.count_nonzero(got[2] != want[2])} other labels")
            if values:
                for i, what in ((3, "x"), (4, "features")):
                    scale = np.abs(want[i]).max() + 1e-3
                    worst = float(np.abs(got[i].astype(np.float64) - want[i]).max(initial=0)) / scale
                    if worst > 1e-6:
                        problems.append(f"{what} differs by up to {worst:.2g} of its largest value")
        if problems:
            sys.exit(f"bench: {name} did not write motionprep's windows ({'; '.join(problems)}): "
                     "the comparison would not be of equal work")
    checked = "count, recordings, start times, labels" + (", x and features" if values else "")
    print(f"  equal work: every peer wrote motionprep's {len(want[0])} windows ({checked} compared)")


# What `motionprep validate` reads and recomputes, the h5py way (bench only, not a validator).
VALIDATE_PY = """
import glob, hashlib, os, sys
import h5py, numpy as np
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.h5"))):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    with h5py.File(path, "r") as f:
        for name, d in f.items():
            for start in range(0, d.shape[0], 4096):
                v = d[start:start + 4096]
                if v.dtype.kind == "f":
                    bad = np.count_nonzero(~np.isfinite(v))
                    if name == "x" and v.size:
                        flat = v.reshape(-1, v.shape[-1]).astype(np.float64)
                        flat.mean(axis=0); flat.std(axis=0); flat.min(axis=0); flat.max(axis=0)
                elif name == "y":
                    np.bincount(v[v >= 0])
"""


if __name__ == "__main__":
    main()
