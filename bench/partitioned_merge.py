"""Merge time of the partitioned layout at 1x, 4x and 16x the data (docs/scale.md, "The
partitioned layout"), beside the default layout's merge (which replays every window).

    python bench/partitioned_merge.py [--bin .build/release/motionprep] [--workers 4] [--repeat 3]

For each size: `motionprep synth` writes SUBJECTS x 2 recordings of 2 minutes (4, 16 and 64
subjects), every worker writes its part for both layouts, and each merge is timed REPEAT times on
fresh hard-linked copies of the parts (`cp -al`; a partitioned merge takes the files away from
its parts). Prints one line per size: data bytes, windows, and the best wall time of each merge.
Not a test: timings depend on the machine and its load."""
import argparse
import json
import shutil
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
    args = ap.parse_args()
    binary = str(Path(args.bin).resolve())

    def mp(*a: object) -> None:
        subprocess.run([binary, *map(str, a)], check=True, capture_output=True, text=True)

    for factor in map(int, args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            mp("synth", "--out", root / "data", "--subjects", 4 * factor, "--recordings", 2, "--minutes", 2, "--seed", 3)
            data = sum(p.stat().st_size for p in (root / "data").rglob("*") if p.is_file())
            best = {}
            for layout, extra in (("default", ""), ("partitioned", ", partitioned: true")):
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
                    start = time.perf_counter()
                    mp("merge", out, *copies, "--quiet")
                    times.append(time.perf_counter() - start)
                    windows = sum(s["num_windows"] for s in json.loads((out / "manifest.json").read_text())["splits"].values())
                    shutil.rmtree(out)
                    shutil.rmtree(root / f"{layout}-copy{r}")
                best[layout] = min(times)
            print(f"{factor:>3}x  {data / 1e6:8.1f} MB of input  {windows:>7} windows  "
                  f"merge default {best['default']:.3f} s  partitioned {best['partitioned']:.3f} s", flush=True)


if __name__ == "__main__":
    main()
