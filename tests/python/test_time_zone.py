"""`time.zone` (docs/inputs.md, "Local wall time"): wall-clock times written without a zone, as
a device that keeps local time writes them, become UTC through the zone's rules.

The reference is Python's `zoneinfo` on the system's tz database (motionprep asks Foundation's
`TimeZone`, ICU's copy): each file is written from true UTC instants by zoneinfo's UTC → local
conversion, every row carries its own true UTC time as a channel, and the dataset's windows must
start at those instants. Recordings cross a fold (clocks back: an hour of wall times occurs
twice), a gap (clocks forward), a 30-minute shift (Australia/Lord_Howe) and a zone without DST
at +05:30; a device whose clock was not set forward writes times that never occurred, which are
reported; the refusals name the key or the field.
"""
import json
import re
from pathlib import Path
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import h5py
import numpy as np
import pytest

from conftest import motionprep

PIPELINE = """\
version: 1
name: tz
inputs:
  - type: csv
    paths: ["data/*.csv"]
    time: {{column: t, {time}}}
    channels: {{utc: utc}}
    sensor: clock
resample: {{rate_hz: 2, method: nearest, max_gap_s: 10, antialias: false}}
window: {{length_samples: 1, stride_samples: 1}}
split: {{by: recording, fractions: {{train: 1, validation: 0, test: 0}}}}
output: {{type: hdf5, path: out}}
"""


def wall_text(utc, zone, with_fraction=True):
    local = datetime.fromtimestamp(utc, timezone.utc).astimezone(ZoneInfo(zone))
    return local.strftime("%Y-%m-%d %H:%M:%S") + (f".{int(round((utc % 1) * 1000)):03d}" if with_fraction else "")


def write(tmp_path, rows, time="unit: iso8601, zone: Europe/Berlin", name="rec"):
    """rows: (wall text, true UTC); the `utc` channel holds true UTC − the first row's whole
    second, which float32 keeps exact to half a second."""
    (tmp_path / "data").mkdir(exist_ok=True)
    base = int(rows[0][1]) if rows else 0
    lines = ["t,utc"] + [f"{w},{u - base}" for w, u in rows]
    (tmp_path / "data" / f"{name}.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "p.yaml").write_text(PIPELINE.format(time=time))
    return tmp_path / "p.yaml"


def starts(tmp_path):
    with h5py.File(tmp_path / "out" / "train.h5") as f:
        return f["start_time_s"][:], f["x"][:, 0, 0]


def utc_span(start_iso, hours, zone):
    """Every half second from `start_iso` (UTC) for `hours`, as (wall text, true UTC)."""
    t0 = datetime.fromisoformat(start_iso).replace(tzinfo=timezone.utc).timestamp()
    return [(wall_text(t0 + i / 2, zone), t0 + i / 2) for i in range(int(hours * 7200))]


@pytest.mark.parametrize("zone, start", [
    ("Europe/Berlin", "2024-10-27T00:00:00"),       # clocks back at 01:00 UTC: 02:00-03:00 local twice
    ("Europe/Berlin", "2024-03-31T00:00:00"),       # clocks forward at 01:00 UTC: 02:00-03:00 local never
    ("America/New_York", "2024-11-03T05:00:00"),    # back at 06:00 UTC
    ("Australia/Lord_Howe", "2024-04-06T14:00:00"), # back by 30 minutes at 15:00 UTC
    ("Asia/Kolkata", "2024-10-27T00:00:00"),        # +05:30, no DST
])
def test_local_times_become_the_instants_they_were(tmp_path, zone, start):
    rows = utc_span(start, 2, zone)
    p = write(tmp_path, rows, time=f"unit: iso8601, zone: {zone}")
    proc = motionprep("run", p)
    t, x = starts(tmp_path)
    truth = np.array([u for _, u in rows])
    # One window per row, each at its true UTC instant, carrying its own row's value.
    assert len(t) == len(rows), proc.stderr
    assert np.array_equal(t, truth)
    assert np.array_equal(x, (truth - int(truth[0])).astype(np.float32))
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["pipeline"]["resolved"]["inputs"][0]["time"]["zone"] == zone
    # A fold is reported (rows at their first and second occurrence); no other zone has one here.
    wall = [w for w, _ in rows]
    if len(set(wall)) < len(wall):
        twice = len(wall) - len(set(wall))
        assert f"{2 * twice} row(s) have a local time that occurred twice in `{zone}`" in proc.stderr, proc.stderr
        assert f"{twice} taken at the first occurrence and {twice} at the second" in proc.stderr, proc.stderr
    else:
        assert "occurred twice" not in proc.stderr and "never occurred" not in proc.stderr, proc.stderr


def test_a_format_without_zone_and_the_same_times_as_iso8601(tmp_path):
    """`time.format` (AndroSensor's `2024-10-27 02:30:00:250`) takes the zone the same way."""
    rows = [(w.replace(".", ":"), u) for w, u in utc_span("2024-10-27T00:30:00", 1, "Europe/Berlin")]
    p = write(tmp_path, rows, time='format: "%Y-%m-%d %H:%M:%S:%f", zone: Europe/Berlin')
    motionprep("run", p)
    t, _ = starts(tmp_path)
    assert np.array_equal(t, np.array([u for _, u in rows]))


def test_a_clock_not_set_forward_writes_times_that_never_occurred(tmp_path):
    """A device that kept winter time up to the change writes 02:00-02:59 on 31 March: those rows
    are reported and taken with the offset before the change (as zoneinfo's fold=0 does), so
    they follow the hour before without a jump."""
    zone = ZoneInfo("Europe/Berlin")
    rows = []
    for i in range(2 * 7200):
        wall = datetime(2024, 3, 31, 1, 0, 0) + timedelta(seconds=i / 2)
        utc = wall.replace(tzinfo=zone).timestamp()  # fold=0: the offset before the change in a gap
        rows.append((wall.strftime("%Y-%m-%d %H:%M:%S.") + f"{int((i % 2) * 500):03d}", utc))
    p = write(tmp_path, rows)
    proc = motionprep("run", p)
    assert "rec.csv:2: " not in proc.stderr  # the first row is not in the gap
    assert "7200 row(s) have a local time that never occurred in `Europe/Berlin`" in proc.stderr, proc.stderr
    assert "the first at 2024-03-31 02:00:00" in proc.stderr, proc.stderr
    t, _ = starts(tmp_path)
    assert np.array_equal(t, np.array([u for _, u in rows]))


def test_without_a_zone_wall_times_are_utc_as_before(tmp_path):
    rows = utc_span("2024-06-01T10:00:00", 0.1, "UTC")
    p = write(tmp_path, rows, time="unit: iso8601")
    motionprep("run", p)
    t, _ = starts(tmp_path)
    assert np.array_equal(t, np.array([u for _, u in rows]))
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert "zone" not in manifest["pipeline"]["resolved"]["inputs"][0]["time"]


@pytest.mark.parametrize("time, fragment", [
    ("unit: s, zone: Europe/Berlin",
     "p.yaml:6:32: error: key `zone` in `inputs[0].time` applies to wall-clock times (`unit: iso8601` or a `format`); "
     "a time in `unit: s` counts from the Unix epoch, the same instant in every zone"),
    ("unit: iso8601, zone: Europe/Berlln",
     "p.yaml:6:44: error: `inputs[0].time.zone` is `Europe/Berlln`, which is not a time zone name this system knows "
     "(expected an IANA name such as `Europe/Berlin`, `America/New_York`, `Asia/Kolkata` or `UTC`)\n  did you mean `Europe/Berlin`?"),
    ('format: "%Y-%m-%d %H:%M:%S%z", zone: Europe/Berlin',
     "p.yaml:6:54: error: key `zone` in `inputs[0].time` does not apply with a `format` that reads each time's zone (`%z`)"),
])
def test_refusals_of_the_pipeline(tmp_path, time, fragment):
    p = write(tmp_path, [("2024-06-01 10:00:00", 0)], time=time)
    proc = motionprep("run", p, check=False)
    assert proc.returncode == 78, proc.stderr
    assert fragment in proc.stderr, proc.stderr
    assert "error:" in proc.stderr.splitlines()[0]


def test_a_time_with_its_own_zone_is_refused_at_its_field(tmp_path):
    rows = [("2024-06-01 10:00:00.000", 0), ("2024-06-01 10:00:00.500Z", 0.5)]
    p = write(tmp_path, rows)
    proc = motionprep("run", p, check=False)
    assert proc.returncode == 65, proc.stderr
    assert "rec.csv:3:1: error: `2024-06-01 10:00:00.500Z` gives its own zone, but the input's `time.zone` is `Europe/Berlin`" \
        in proc.stderr, proc.stderr


CWA = """\
version: 1
name: tzcwa
inputs:
  - type: cwa
    paths: ["data/**/*.cwa"]
{time}resample: {{rate_hz: 25, antialias: false}}
window: {{length_samples: 25, stride_samples: 25}}
split: {{by: recording, fractions: {{train: 1, validation: 0, test: 0}}}}
output: {{type: hdf5, path: {out}}}
"""


def test_a_cwa_device_on_local_time(tmp_path):
    """An Axivity device keeps the clock it was set to, often local time: `time: {zone: …}` on a
    cwa input converts each block's timestamp (its fraction kept). Kolkata is +05:30 all year, so
    every window starts 19,800 s earlier than without the zone, bit for bit otherwise."""
    motionprep("synth", "--out", tmp_path / "data", "--format", "cwa", "--subjects", 1, "--recordings", 1,
               "--minutes", 0.5, "--seed", 4)
    runs = {}
    for name, time in (("utc", ""), ("local", "    time: {zone: Asia/Kolkata}\n")):
        (tmp_path / f"{name}.yaml").write_text(CWA.format(time=time, out=name))
        motionprep("run", tmp_path / f"{name}.yaml")
        with h5py.File(tmp_path / name / "train.h5") as f:
            runs[name] = (f["start_time_s"][:], f["x"][:])
    assert len(runs["utc"][0]) > 10
    assert np.array_equal(runs["local"][0], runs["utc"][0] - 19_800)
    assert np.array_equal(runs["local"][1], runs["utc"][1])
    manifest = json.loads((tmp_path / "local" / "manifest.json").read_text())
    assert manifest["pipeline"]["resolved"]["inputs"][0]["time"] == {"zone": "Asia/Kolkata"}
    (tmp_path / "bad.yaml").write_text(CWA.format(time="    time: {zone: Asia/Kolkata, unit: s}\n", out="bad"))
    proc = motionprep("run", tmp_path / "bad.yaml", check=False)
    assert proc.returncode == 78 and "unit" in proc.stderr, proc.stderr


def test_androsensor_local_date_column_read_as_csv_with_a_zone(tmp_path):
    """The presets read clocks that are not wall time (docs/inputs.md, "Local wall time"), so a
    preset takes no `time`; AndroSensor's local date column is read through `type: csv` with a
    `format` and `zone`, as the docs' pipeline does, and the first window starts at the UTC
    instant zoneinfo gives for the file's first date."""
    motionprep("synth", "--out", tmp_path / "andro", "--format", "androsensor", "--subjects", "1",
               "--recordings", "1", "--minutes", "1")
    text = Path(__file__).resolve().parents[2].joinpath("docs/inputs.md").read_text()
    block = re.search(r"```yaml\n(version: 1\nname: androsensor-local-time\n.*?)```", text, re.S).group(1)
    (tmp_path / "p.yaml").write_text(block)
    proc = motionprep("run", tmp_path / "p.yaml", cwd=tmp_path)
    (csv,) = list((tmp_path / "andro").glob("*/*.csv"))
    first = csv.read_text(encoding="utf-8").split("\n")[2].rstrip().split(";")[-1]
    local = datetime.strptime(first[:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=ZoneInfo("Europe/Berlin"))
    truth = local.timestamp() + int(first[20:]) / 1000
    with h5py.File(tmp_path / "out" / "train.h5") as f:
        assert f["start_time_s"][0] == pytest.approx(truth, abs=1e-6), proc.stdout
    # The preset itself takes no `time` key (78): its clock is the time since the start.
    (tmp_path / "q.yaml").write_text(block.replace("type: csv", "type: androsensor")
                                     .replace('    channels: {acc_x: "ACCELEROMETER X (m/s²)", acc_y: "ACCELEROMETER Y (m/s²)", acc_z: "ACCELEROMETER Z (m/s²)"}\n', "")
                                     .replace("    units: {acc_x: m/s^2, acc_y: m/s^2, acc_z: m/s^2}\n", "")
                                     .replace("    sensor: acc\n", ""))
    bad = motionprep("validate", tmp_path / "q.yaml", cwd=tmp_path, check=False)
    assert bad.returncode == 78 and "time" in bad.stderr, bad.stderr
