"""Merge time of the partitioned layout at 1x, 4x and 16x the data (docs/scale.md, "The
partitioned layout"), beside the default layout's merge (which replays every window).

    python bench/partitioned_merge.py [--bin .build/release/motionprep] [--workers 4] [--repeat 3]
        [--scale length|recordings] [--subjects 4] [--minutes 2] [--sizes 1,4,16] [--layouts default,partitioned]

For each size F: `motionprep synth` writes SUBJECTS subjects x 2 recordings of F x MINUTES minutes
(`--scale length`, the default: the data grows, the recordings stay the same), or F x SUBJECTS
subjects x 2 recordings of MINUTES minutes (`--scale recordings`: the manifest's lists of
recordings and inputs grow with the data too); every worker writes its part for each layout, and each merge is timed REPEAT times on
fresh hard-linked copies of the parts (`cp -al`; a partitioned merge takes the files away from
its parts). Before each merge the page cache is written back (`sync`): the parts were just written
here, and a merge's fsync would otherwise wait for the workers' own data to reach the disk (on a
cluster the parts are long written when merge runs). Prints one line per size: data bytes,
recordings, windows, and the min and median wall time and CPU time (user + system) of each merge.
Not a test: timings depend on the machine and its load."""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

PIPELINE = """\
version: 1
name: mergebench
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {{rate_hz: 50, max_gap_s: 0.2}}
window: {{length_s: 2.56, stride_s: 1.28}}
labels: {{map: {{W: walk, T: turn}}, min_fraction: 0.8}}
features: [mean, std]
split: {{fractions: {{train: 0.5, validation: 0.25, test: 0.25}}}}
output: {{type: hdf5, path: out{extra}}}
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/motionprep")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="1,4,16")
    ap.add_argument("--scale", choices=["length", "recordings"], default="length")
    ap.add_argument("--subjects", type=int, default=4)
    ap.add_argument("--minutes", type=float, default=2)
    ap.add_argument("--layouts", default="default,partitioned")
    args = ap.parse_args()
    layouts = [(name, {"default": "", "partitioned": ", partitioned: true"}[name]) for name in args.layouts.split(",")]
    binary = str(Path(args.bin).resolve())

    def mp(*a: object) -> None:
        subprocess.run([binary, *map(str, a)], check=True, capture_output=True, text=True)

    for factor in map(int, args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            subjects, minutes = ((args.subjects, args.minutes * factor) if args.scale == "length"
                                 else (args.subjects * factor, args.minutes))
            mp("synth", "--out", root / "data", "--subjects", subjects, "--recordings", 2, "--minutes", minutes, "--seed", 3)
            data = sum(p.stat().st_size for p in (root / "data").rglob("*") if p.is_file())
            best = {}
            for layout, extra in layouts:
                (root / f"{layout}.yaml").write_text(PIPELINE.format(extra=extra))
                parts = []
                for i in range(args.workers):
                    out = root / f"{layout}-parts" / f"p{i}"
                    mp("run", root / f"{layout}.yaml", "--worker", f"{i}/{args.workers}", "--out", out, "--quiet")
                    parts.append(out)
                times = []
                for r in range(args.repeat):
                    copies = []
                    for p in parts:
                        c = root / f"{layout}-copy{r}" / p.name
                        c.parent.mkdir(exist_ok=True)
                        subprocess.run(["cp", "-al", str(p), str(c)], check=True)
                        copies.append(c)
                    out = root / f"{layout}-merged{r}"
                    os.sync()
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    start = time.perf_counter()
                    mp("merge", out, *copies, "--quiet")
                    wall = time.perf_counter() - start
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    times.append((wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
                    windows = sum(s["num_windows"] for s in json.loads((out / "manifest.json").read_text())["splits"].values())
                    shutil.rmtree(out)
                    shutil.rmtree(root / f"{layout}-copy{r}")
                best[layout] = times
            recordings = subjects * 2

            def shown(times):
                walls, cpus = sorted(t[0] for t in times), sorted(t[1] for t in times)
                return (f"wall min {walls[0]:.3f} median {statistics.median(walls):.3f} s, "
                        f"CPU min {cpus[0]:.3f} median {statistics.median(cpus):.3f} s")
            print(f"{factor:>3}x  {data / 1e6:8.1f} MB of input  {recordings:>6} recordings  {windows:>7} windows  "
                  + "  ".join(f"{layout}: {shown(t)}" for layout, t in best.items())
                  + f"  (load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
