"""Hostile input (issue 10): one real `motionprep run` per case on generated files.

For every case: the exit code (docs/commands.md), a message that names the file and the position
(`file:line:col`, `file:line`, or a byte offset for IIO), and — for every failing run — no
`manifest.json` in the output folder (nor a finished-looking dataset anywhere). Cases that the
docs (docs/inputs.md) say are *not* errors (missing values, duplicate times, a truncated dump without
`strict`) must succeed and count what they dropped.
"""
import gzip
import json
import re
import struct
from dataclasses import dataclass, field

import pytest

import cwa_spec
from conftest import motionprep

MC_HEADER = b"Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"


def mc_rows(n=300, start=0.0, rate=100.0, label=b"W"):
    """`n` accelerometer rows of a MotionCollector file at `rate` Hz from `start` s."""
    return b"".join(b"A,%s,%.4f,0.01,-0.98,0.05\n" % (label, start + i / rate) for i in range(n))


def mc_file(*middle, n=300):
    """A good MotionCollector file with `middle` rows spliced in after line 11 (lines 12…)."""
    return MC_HEADER + mc_rows(10) + b"".join(middle) + mc_rows(n, start=0.1)


CSV_HEADER = b"t,x,y,z\n"


def csv_rows(n=300, start=0.0, rate=100.0):
    return b"".join(b"%.4f,%d,%d,%d\n" % (start + i / rate, i % 7, -(i % 5), 1) for i in range(n))


def csv_file(*middle):
    return CSV_HEADER + csv_rows(10) + b"".join(middle) + csv_rows(300, start=0.1)


def iso(ts):
    return b"t,x,y,z\n" + b"".join(b"%s,1,2,3\n" % t for t in ts)


IIO_LAYOUT = """{channels: [{name: in_accel_x, index: 0, type: "%s", scale: 0.01},
                  {name: in_accel_y, index: %d, type: "le:s16/16>>0", scale: 0.01}],
       timestamp: {index: 2, type: "le:s64/64>>0"}}"""


# A sysfs folder copy beside the dump with the same layout as IIO_LAYOUT (for `"{dirpath}/sysfs"`).
SYSFS = {f"data/sysfs/scan_elements/{name}_{attr}": value
         for name, index, typ in [("in_accel_x", 0, b"le:s16/16>>0"), ("in_accel_y", 1, b"le:s16/16>>0"),
                                  ("in_timestamp", 2, b"le:s64/64>>0")]
         for attr, value in [("en", b"1\n"), ("index", b"%d\n" % index), ("type", typ + b"\n")]}
SYSFS["data/sysfs/in_accel_scale"] = b"0.01\n"


def iio_dump(scans=300, rate=100.0, tail=b"", start_ns=0):
    """Scans of two s16 channels and a timestamp: 2 + 2 + 4 padding + 8 = 16 bytes each."""
    return b"".join(struct.pack("<hh4xq", i, -i, start_ns + int(i * 1e9 / rate)) for i in range(scans)) + tail


def pipeline(kind="motioncollector", window="{length_s: 1, stride_s: 0.5}", rate="50", extra="",
             input_extra="", layout=None):
    if kind == "motioncollector":
        inp = '  - type: motioncollector\n    paths: ["data/*.csv"]\n    sensors: [A]\n'
    elif kind == "csv":
        inp = ('  - type: csv\n    paths: ["data/*.csv"]\n    time: {column: t, unit: %s}\n'
               '    channels: {acc_x: x, acc_y: y, acc_z: z}\n') % ("iso8601" if "iso" in input_extra else "s")
        input_extra = input_extra.replace("iso", "")
    elif kind == "cwa":
        inp = '  - type: cwa\n    paths: ["data/*.cwa"]\n'
    else:
        inp = '  - type: iio\n    paths: ["data/*.bin"]\n    layout: %s\n' % (layout or IIO_LAYOUT % ("le:s16/16>>0", 1))
    return ("version: 1\ninputs:\n" + inp + input_extra + "resample: {rate_hz: %s}\nwindow: %s\n" % (rate, window)
            + extra + "output: {type: hdf5, path: out}\n")


@dataclass
class Case:
    """One hostile input: files under the run folder, the pipeline text, what must happen."""
    id: str
    files: dict
    pipeline: str
    exit: int
    # Regular expressions that must all occur in stderr (for failures: file and position).
    message: list = field(default_factory=list)
    # For successful runs: manifest counts that must hold, e.g. {"missing_value": 3}.
    rows_dropped: dict = field(default_factory=dict)
    args: tuple = ()


REC = "data/rec.csv"
BIN = "data/rec.bin"
CWA = "data/rec.cwa"
CWA_GOOD = cwa_spec.recording()


def cwa_damaged(at=3 * 512 + 1024 + 100):
    b = bytearray(CWA_GOOD)
    b[at] ^= 0x10
    return bytes(b)

TEN_MB = 10 * 1024 * 1024

CASES = [
    # --- Axivity CWA (docs/inputs.md, "Axivity CWA (cwa)"): one sentence with the byte offset
    Case("cwa-empty-file", {CWA: b""}, pipeline("cwa"), 65, [r"^data/rec\.cwa: error: at byte 0: the file is empty"]),
    Case("cwa-random-bytes", {CWA: bytes((i * 7919 + 13) % 251 for i in range(4096))}, pipeline("cwa"), 65,
         [r"^data/rec\.cwa: error: at byte 0: not an Axivity CWA file: it starts with 0d 97 26 b0 3f c9 58 e2 \(expected"]),
    Case("cwa-text-named-cwa", {CWA: CSV_HEADER + csv_rows()}, pipeline("cwa"), 65,
         [r"^data/rec\.cwa: error: at byte 0: not an Axivity CWA file: it starts with 74 2c 78 2c 79 2c 7a 0a"]),
    Case("cwa-cut-in-header", {CWA: CWA_GOOD[:700]}, pipeline("cwa"), 65,
         [r"^data/rec\.cwa: error: the file ends at byte 700, inside its 1024-byte header block"]),
    Case("cwa-header-only", {CWA: CWA_GOOD[:1024]}, pipeline("cwa"), 65,
         [r"^data/rec\.cwa: error: at byte 1024: no data rows: the file has a header but no data block"]),
    Case("cwa-zero-blocks", {CWA: CWA_GOOD[:1024] + bytes(4096)}, pipeline("cwa"), 65,
         [r"^data/rec\.cwa: error: at byte 1024: no data rows: none of its 8 data blocks .*cwa_not_data_block: 8"]),
    Case("cwa-gyro-on-an-ax3", {CWA: CWA_GOOD}, pipeline("cwa", input_extra="    sensors: [acc, gyro]\n"), 65,
         [r"^data/rec\.cwa: error: at byte 1024: the input keeps `gyro`, but this block has no gyroscope"]),
    Case("cwa-partial-last-block", {CWA: CWA_GOOD + bytes(100)}, pipeline("cwa"), 0,
         [r"data/rec\.cwa: warning: the file ends with a partial block of 100 bytes at byte 6144, dropped \(cwa_partial_block\)"],
         rows_dropped={"cwa_partial_block": 1}),
    Case("cwa-partial-last-block-strict", {CWA: CWA_GOOD + bytes(100)}, pipeline("cwa", input_extra="    strict: true\n"), 65,
         [r"^data/rec\.cwa: error: at byte 6144: the file ends with a partial block of 100 bytes"]),
    Case("cwa-bad-checksum", {CWA: cwa_damaged()}, pipeline("cwa"), 0,
         [r"data/rec\.cwa: warning: 1 block dropped \(cwa_bad_checksum: its checksum fails\), the first at byte 2560"],
         rows_dropped={"cwa_bad_checksum": 1}),
    Case("cwa-repeated-block", {CWA: CWA_GOOD[:2048] + CWA_GOOD[1536:2048] + CWA_GOOD[2048:]}, pipeline("cwa"), 0,
         [r"cwa_repeated_block"], rows_dropped={"cwa_repeated_block": 1}),
    # --- files: sizes and shapes
    Case("empty-file", {REC: b""}, pipeline(), 65, [r"data/rec\.csv", r"empty|no data"]),
    Case("header-only", {REC: MC_HEADER}, pipeline(), 65, [r"data/rec\.csv", r"no data row"]),
    Case("csv-header-only", {REC: CSV_HEADER}, pipeline("csv"), 65, [r"data/rec\.csv", r"no data row"]),
    Case("short-row", {REC: mc_file(b"A,W,0.5,1,2\n")}, pipeline(), 65, [r"data/rec\.csv:12(:\d+)?\b"]),
    Case("long-row", {REC: mc_file(b"A,W,0.5,1,2,3,4,5\n")}, pipeline(), 65, [r"data/rec\.csv:12(:\d+)?\b"]),
    Case("csv-short-row", {REC: csv_file(b"0.105,1,2\n")}, pipeline("csv"), 65, [r"data/rec\.csv:12(:\d+)?\b"]),
    Case("csv-long-row", {REC: csv_file(b"0.105,1,2,3,4\n")}, pipeline("csv"), 65, [r"data/rec\.csv:12\b", r"5 fields"]),
    Case("10MB-line-no-newline", {REC: MC_HEADER + mc_rows(10) + b"A,W,0.5," + b"1" * TEN_MB}, pipeline(), 65,
         [r"data/rec\.csv:12: error: line is longer than 1048576 bytes \(is this a MotionCollector file\?\)"]),
    Case("csv-10MB-line-no-newline", {REC: CSV_HEADER + b"0," + b"9" * TEN_MB}, pipeline("csv"), 65,
         [r"data/rec\.csv:2: error: line is longer than 1048576 bytes"]),
    # Issue 14 §10: every reader names the line over the limit, in the middle of a file too.
    Case("2MB-line-mid-file", {REC: mc_file(b"A,W,0.5," + b"1" * (2 << 20) + b"\n")}, pipeline(), 65,
         [r"^data/rec\.csv:12: error: line is longer than 1048576 bytes \(is this a MotionCollector file\?\)$"]),
    # A long first line is judged as a header first (shown cut to 60 characters).
    Case("2MB-first-line", {REC: b"S" * (2 << 20) + b"\n" + mc_rows()}, pipeline(), 65,
         [r"^data/rec\.csv:1: error: not a MotionCollector header: `S{60}…` \(expected"]),
    Case("csv-2MB-line-mid-file", {REC: csv_file(b"0.105," + b"9" * (2 << 20) + b",1,1\n")}, pipeline("csv"), 65,
         [r"^data/rec\.csv:12: error: line is longer than 1048576 bytes \(is a quote left open, or is this not a delimited text file\?\)$"]),
    Case("csv-2MB-header", {REC: b"t," + b"x" * (2 << 20) + b"\n" + csv_rows()}, pipeline("csv"), 65,
         [r"^data/rec\.csv:1: error: line is longer than 1048576 bytes"]),
    Case("csv-quote-left-open", {REC: csv_file(b'0.105,"1\n' + b"2,3,4\n" * 300_000)}, pipeline("csv"), 65,
         [r"^data/rec\.csv:12: error: line is longer than 1048576 bytes \(is a quote left open"]),
    Case("intervals-2MB-line", {REC: mc_file(), "labels.csv": b"recording,start_s,end_s,label\nrec,0,1,W\nrec,1," + b"2" * (2 << 20) + b",W\n"},
         pipeline(extra="labels: {from: intervals, path: labels.csv, classes: [W]}\n"), 65,
         [r"^labels\.csv:3: error: line is longer than 1048576 bytes \(is a quote left open, or is this not an intervals file, `recording,start_s,end_s,label`\?\)$"]),
    # A quote left open runs to the end of the file: named where it opens.
    Case("intervals-quote-left-open", {REC: mc_file(), "labels.csv": b'recording,start_s,end_s,label\nrec,0,1,"W\nrec,1,2,W\n'},
         pipeline(extra="labels: {from: intervals, path: labels.csv, classes: [W]}\n"), 65,
         [r"^labels\.csv:2:9: error: a quoted field is not closed before the end of the file"]),
    # --- numbers (docs/inputs.md, "Bad rows and time order"): errors name line:column and the value
    Case("1.2.3", {REC: mc_file(b"A,W,0.105,1.2.3,1,1\n")}, pipeline(), 65, [r"data/rec\.csv:12:\d+", r"1\.2\.3"]),
    Case("0x10", {REC: mc_file(b"A,W,0.105,0x10,1,1\n")}, pipeline(), 65, [r"data/rec\.csv:12:\d+", r"0x10"]),
    Case("csv-abc", {REC: csv_file(b"0.105,abc,1,1\n")}, pipeline("csv"), 65, [r"data/rec\.csv:12:\d+", r"abc"]),
    Case("time-1.2.3", {REC: mc_file(b"A,W,1.2.3,1,1,1\n")}, pipeline(), 65, [r"data/rec\.csv:12:\d+", r"1\.2\.3"]),
    # Missing values, not errors: the rows are dropped and counted.
    Case("nan-inf-1e999", {REC: mc_file(b"A,W,0.101,nan,1,1\n", b"A,W,0.102,1,inf,1\n", b"A,W,0.103,1,1,1e999\n",
                                        b"A,W,0.104,-Infinity,1,1\n")},
         pipeline(), 0, rows_dropped={"missing_value": 4}),
    # --- bytes
    Case("invalid-utf8-label", {REC: mc_file(b"A,\xff\xfe,0.105,1,1,1\n")}, pipeline(), 65,
         [r"data/rec\.csv:12:\d+", r"UTF-8"]),
    Case("invalid-utf8-number", {REC: mc_file(b"A,W,0.105,1\xff,1,1\n")}, pipeline(), 65, [r"data/rec\.csv:12:\d+"]),
    Case("nul-bytes", {REC: mc_file(b"A,W,0.105,1,\x00\x00,1\n")}, pipeline(), 65, [r"data/rec\.csv:12:\d+", r"NUL"]),
    Case("csv-nul-in-header", {REC: b"t,x\x00,y,z\n" + csv_rows()}, pipeline("csv"), 65, [r"data/rec\.csv:1(:\d+)?\b"]),
    # Refused before it is parsed, with what it looks like (docs/inputs.md, "Binary files"); no line.
    Case("binary-garbage", {REC: bytes(range(256)) * 64}, pipeline(), 65, [r"^data/rec\.csv: error: binary, not text: its first bytes are 00 01 02"]),
    # Compressed inputs (docs/inputs.md, "Compressed files"), found by their magic whatever the name:
    # a cut stream names its offset; a 200 MB line in a 200 KB gzip stops at the line limit.
    Case("gzip-truncated", {REC: gzip.compress(mc_file(), mtime=0)[:-9]}, pipeline(), 65,
         [r"^data/rec\.csv: error: truncated gzip data: the file ends at byte \d+ inside the member that starts at byte 0"]),
    Case("gzip-200MB-line", {REC: gzip.compress(mc_file(b"A,W,0.5," + b"1" * (200 << 20) + b"\n"), mtime=0)}, pipeline(), 65,
         [r"^data/rec\.csv:12: error: line is longer than 1048576 bytes"]),
    Case("gzip-of-garbage", {REC: gzip.compress(bytes(range(256)) * 64, mtime=0)}, pipeline(), 65,
         [r"^data/rec\.csv: error: binary, not text, once gzip-decompressed: its first bytes are 00 01 02"]),
    # --- time (docs/inputs.md, "Bad rows and time order")
    Case("time-backwards", {REC: mc_file(b"A,W,0.05,1,1,1\n")}, pipeline(), 65, [r"data/rec\.csv:12\b", r"0\.05"]),
    Case("csv-time-backwards", {REC: csv_file(b"0.05,1,1,1\n")}, pipeline("csv"), 65, [r"data/rec\.csv:12\b"]),
    Case("time-duplicated", {REC: mc_file(b"A,W,0.1,1,1,1\n", b"A,W,0.1,1,1,1\n")}, pipeline(), 0,
         rows_dropped={"duplicate_time": 2}),
    Case("time-negative", {REC: MC_HEADER + mc_rows(300, start=-2.0)}, pipeline(), 0),
    Case("time-year-9999", {REC: iso([b"2024-01-01T00:00:00Z", b"2024-01-01T00:00:01Z", b"9999-12-31T23:59:59Z"])},
         pipeline("csv", input_extra="iso"), 65, [r"data/rec\.csv:4\b", r"9999|grid|span"]),
    Case("time-absurd-seconds", {REC: MC_HEADER + mc_rows(300) + b"A,W,1e12,1,1,1\n"}, pipeline(), 65,
         [r"data/rec\.csv:302\b", r"grid|span"]),
    # Issue 14 §8: a clock too coarse for the grid (float64's spacing at 1.7e15 s is 0.25 s) or for
    # the stream's own sampling interval (at 1e12 s it is 1.2e-4 s, at 1000 Hz) is an error at the
    # line of the largest time, not thousands of rows dropped as duplicate_time.
    Case("time-too-coarse-for-grid", {REC: MC_HEADER + mc_rows(300, start=1.7e15)}, pipeline(), 65,
         [r"^data/rec\.csv:301: error: recording `rec` has times near 1700000000000003\.0 s, where float64 has "
          r"a resolution of 0\.25 s, coarser than 1/16 of the 0\.02 s grid period \(50 Hz\), so samples would collapse "
          r"onto the same time; store times relative to the recording's start, or check the time unit \(an input's `time\.unit`\)$"]),
    Case("time-too-coarse-for-stream", {REC: MC_HEADER + mc_rows(3000, start=1e12, rate=1000.0)}, pipeline(), 65,
         [r"^data/rec\.csv:3001: error: recording `rec` has times near 1000000000002\.999\d* s, where float64 has "
          r"a resolution of 0\.0001220703125 s, coarser than 1/16 of the stream's mean sampling interval of 0\.001\d* s "
          r"\(3000 samples over 2\.99\d* s\)"]),
    # Legitimate clocks pass: epoch seconds at 1000 Hz, IIO epoch nanoseconds, ISO 8601 epochs.
    Case("time-epoch-seconds-1000hz", {REC: MC_HEADER + mc_rows(3000, start=1.7e9, rate=1000.0)}, pipeline(rate="1000"), 0),
    Case("iio-epoch-nanoseconds", {BIN: iio_dump(start_ns=1_700_000_000_000_000_000)}, pipeline("iio"), 0),
    Case("csv-iso-epoch", {REC: iso([b"2024-01-01T00:00:%02d.%02dZ" % (i // 100, i % 100) for i in range(300)])},
         pipeline("csv", input_extra="iso"), 0),
    Case("csv-time-month-13", {REC: iso([b"2024-13-01T00:00:00Z"])}, pipeline("csv", input_extra="iso"), 65,
         [r"data/rec\.csv:2:1\b"]),
    # --- IIO: layouts and dumps (byte offsets)
    # An inline layout is part of the pipeline file (78 at the value's line:column); a layout
    # folder is input data (65 naming the sysfs file).
    Case("iio-invalid-type", {BIN: iio_dump()}, pipeline("iio", layout=IIO_LAYOUT % ("le:s17/16>>0", 1)), 78,
         [r"pipeline\.yaml:5:60: error: `in_accel_x`", r"le:s17/16>>0", r"realbits 17"]),
    Case("iio-garbage-type", {BIN: iio_dump()}, pipeline("iio", layout=IIO_LAYOUT % ("xx:q16", 1)), 78,
         [r"pipeline\.yaml:5:60: error: `in_accel_x`", r"xx:q16"]),
    Case("iio-duplicate-index", {BIN: iio_dump()}, pipeline("iio", layout=IIO_LAYOUT % ("le:s16/16>>0", 0)), 78,
         [r"pipeline\.yaml:6:\d+: ", r"index 0", r"in_accel_x", r"in_accel_y"]),
    Case("iio-units-unknown-channel", {BIN: iio_dump()}, pipeline("iio", input_extra="    units: {acc_q: g}\n"), 78,
         [r"pipeline\.yaml:8:13\b", r"acc_q", r"acc_x"]),
    Case("iio-sysfs-invalid-type", {BIN: iio_dump(), **SYSFS, "data/sysfs/scan_elements/in_accel_x_type": b"le:s17/16>>0\n"},
         pipeline("iio", layout='"{dirpath}/sysfs"'), 65,
         [r"data/sysfs/scan_elements/in_accel_x_type: error: `in_accel_x`", r"le:s17/16>>0"]),
    Case("iio-truncated", {BIN: iio_dump(tail=b"\x01\x02\x03")}, pipeline("iio"), 0,
         rows_dropped={"partial_scan": 1}),
    Case("iio-truncated-strict", {BIN: iio_dump(tail=b"\x01\x02\x03")}, pipeline("iio", input_extra="    strict: true\n"),
         65, [r"data/rec\.bin", r"byte 4800|offset 4800|4800"]),
    Case("iio-time-backwards", {BIN: iio_dump(20) + struct.pack("<hh4xq", 1, 1, 5) + iio_dump(300)[16 * 21:]},
         pipeline("iio"), 65, [r"data/rec\.bin", r"\b320\b"]),
    Case("iio-empty", {BIN: b""}, pipeline("iio"), 65, [r"data/rec\.bin"]),
    # --- the pipeline file (78, file:line:col)
    Case("yaml-tabs", {REC: mc_file()}, pipeline().replace("  - type", "\t- type"), 78, [r"pipeline\.yaml:3:\d+", r"tab"]),
    Case("yaml-billion-laughs", {REC: mc_file()},
         pipeline() + 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
         + 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n', 78,
         [r"pipeline\.yaml:\d+:\d+", r"alias"]),
    Case("yaml-unknown-key", {REC: mc_file()}, pipeline(window="{lenght_s: 1, stride_s: 0.5}"), 78,
         [r"pipeline\.yaml:\d+:\d+", r"lenght_s", r"length_s"]),
    Case("yaml-wrong-type", {REC: mc_file()}, pipeline(rate="[50]"), 78, [r"pipeline\.yaml:\d+:\d+", r"rate_hz"]),
    Case("yaml-rate-zero", {REC: mc_file()}, pipeline(rate="0"), 78, [r"pipeline\.yaml:\d+:\d+", r"rate_hz"]),
    Case("yaml-rate-negative", {REC: mc_file()}, pipeline(rate="-50"), 78, [r"pipeline\.yaml:\d+:\d+", r"rate_hz"]),
    Case("yaml-rate-nan", {REC: mc_file()}, pipeline(rate=".nan"), 78, [r"pipeline\.yaml:\d+:\d+", r"rate_hz"]),
    # Issue 14 §8: 1 / 1e-320 overflows to infinity: no grid time could be computed.
    Case("yaml-rate-subnormal", {REC: mc_file()}, pipeline(rate="1e-320"), 78,
         [r"^pipeline\.yaml:6:21: error: `resample\.rate_hz` must be a number whose period "
          r"1 / rate_hz is finite \(at least 2\.2250738585072014e-308 Hz\), not `1e-320`"]),
    Case("yaml-window-negative", {REC: mc_file()}, pipeline(window="{length_s: -1, stride_s: 0.5}"), 78,
         [r"pipeline\.yaml:\d+:\d+", r"length_s"]),
    Case("yaml-deep-nesting", {REC: mc_file()}, pipeline() + "x: " + "[" * 10000 + "]" * 10000 + "\n", 78,
         [r"pipeline\.yaml:\d+:\d+"]),
    Case("yaml-invalid-utf8", {REC: mc_file()}, pipeline().encode() + b"name: \xff\xfe\n", 78, [r"pipeline\.yaml"]),
    Case("yaml-not-a-mapping", {REC: mc_file()}, "- 1\n- 2\n", 78, [r"pipeline\.yaml:1:1"]),
    Case("yaml-empty", {REC: mc_file()}, "", 78, [r"pipeline\.yaml"]),
    # --- resource limits (issue 10 §3): refused before allocating
    Case("window-1e9-samples", {REC: mc_file()}, pipeline(window="{length_samples: 1000000000, stride_samples: 1}"), 78,
         [r"pipeline\.yaml:\d+:\d+", r"resource limit"]),
    Case("window-longer-than-every-recording", {REC: mc_file()}, pipeline(window="{length_s: 3600, stride_s: 1}"), 65,
         [r"^pipeline\.yaml:7:1: error: the run produced no window: one window is 180000 samples \(3600\.0 s at 50 Hz\), "
          r"longer than every recording's longest gap-free stretch; longest gap-free stretch per recording: "
          r"`rec` 3\.1 s \(155 samples\); 1 recording\(s\) read$"]),
    # More than 5 recordings: the 5 longest, longest first, and how many there are.
    Case("window-longer-than-seven-recordings", {f"data/r{i}.csv": MC_HEADER + mc_rows(100 + 50 * i) for i in range(7)},
         pipeline(window="{length_s: 3600, stride_s: 1}"), 65,
         [r"^pipeline\.yaml:7:1: error: the run produced no window: one window is 180000 samples \(3600\.0 s at 50 Hz\), "
          r"longer than every recording's longest gap-free stretch; the 5 longest gap-free stretches of 7 recordings: "
          r"`r6` 4\.0 s \(200 samples\), `r5` 3\.5 s \(175 samples\), `r4` 3\.0 s \(150 samples\), "
          r"`r3` 2\.5 s \(125 samples\), `r2` 2\.0 s \(100 samples\); 7 recording\(s\) read$"]),
    Case("iio-1e6-channels", {BIN: iio_dump()},
         pipeline("iio", layout="{channels: [{name: in_accel_x, index: 0, type: \"le:s16/16X1048576>>0\"}], "
                                "sampling_frequency_hz: 100}"), 78, [r"pipeline\.yaml:5:13\b", r"4096|more than"]),
    Case("csv-1e6-channels", {REC: csv_file()},
         pipeline("csv").replace("{acc_x: x, acc_y: y, acc_z: z}",
                                 "{" + ", ".join(f"c{i}: x" for i in range(200_000)) + "}"), 78,
         [r"pipeline\.yaml", r"larger than 1048576 bytes"]),
    Case("grid-too-large", {REC: MC_HEADER + mc_rows(200) + mc_rows(200, start=5e6)}, pipeline(rate="1000"), 65,
         [r"data/rec\.csv", r"grid"]),
    Case("windows-too-many-values", {REC: MC_HEADER + b"A,W,0,1,1,1\nA,W,0.01,1,1,1\nA,W,10004,1,1,1\n"},
         pipeline(rate="100", window="{length_samples: 1000000, stride_samples: 1}",
                  extra="").replace("resample: {rate_hz: 100}", "resample: {rate_hz: 100, max_gap_s: 20000}"), 65,
         [r"data/rec\.csv", r"windows", r"resource limit"]),
    # --- paths and output (66, 73)
    Case("paths-match-nothing", {}, pipeline(), 66, [r"data/\*\.csv"]),
    Case("output-is-a-file", {REC: mc_file(), "out": b"not a folder"}, pipeline(), 73, [r"out\b", r"file"]),
    # Root ignores permission bits (CI runs as root), so "not writable" is a parent that is a file.
    Case("output-parent-is-a-file", {REC: mc_file(), "blocker": b"x"}, pipeline().replace("path: out", "path: blocker/out"),
         73, [r"blocker"]),
    Case("output-under-proc", {REC: mc_file()}, pipeline().replace("path: out", "path: /proc/motionprep-test/out"), 73,
         [r"/proc/motionprep-test"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(tmp_path, case):
    for name, data in case.files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (tmp_path / "data").mkdir(exist_ok=True)
    text = case.pipeline if isinstance(case.pipeline, bytes) else case.pipeline.encode()
    (tmp_path / "pipeline.yaml").write_bytes(text)
    p = motionprep("run", "pipeline.yaml", "--quiet", "--jobs", 2, *case.args, cwd=tmp_path, check=False)
    assert p.returncode == case.exit, f"exit {p.returncode}, wanted {case.exit}:\n{p.stderr[-2000:]}"
    err = p.stderr
    assert "internal error" not in err and "Fatal error" not in err, err[-2000:]
    for pattern in case.message:
        assert re.search(pattern, err, re.M), f"stderr lacks /{pattern}/:\n{err[-2000:]}"
    out = tmp_path / "out"
    if case.exit == 0:
        manifest = json.loads((out / "manifest.json").read_text())
        for reason, n in case.rows_dropped.items():
            assert manifest["counts"]["rows_dropped"].get(reason) == n, manifest["counts"]
    else:
        # One sentence on stderr, not a dump.
        assert re.match(r"^(motionprep|\S+?): error: ", err), err[:500]
        assert len(err) < 20_000, f"{len(err)} bytes on stderr"
        assert not (out / "manifest.json").exists()
        assert not list(tmp_path.rglob("manifest.json")), list(tmp_path.rglob("manifest.json"))
        assert not (tmp_path / "out.partial").exists()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input_streamed_like_whole(tmp_path, case):
    """The same hostile inputs with every recording streamed in small blocks (docs/streaming.md):
    the same exit code, the same stderr, the same output bytes."""
    import os
    import subprocess
    from conftest import BIN
    results = []
    for mode, env in (("whole", {"MOTIONPREP_STREAM_BLOCK_BYTES": str(1 << 40)}),   # each file in one block
                      ("streamed", {"MOTIONPREP_STREAM_BLOCK_BYTES": "1000"})):
        root = tmp_path / mode
        for name, data in case.files.items():
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        (root / "data").mkdir(parents=True, exist_ok=True)
        text = case.pipeline if isinstance(case.pipeline, bytes) else case.pipeline.encode()
        (root / "pipeline.yaml").write_bytes(text)
        p = subprocess.run([BIN, "run", "pipeline.yaml", "--quiet", "--jobs", "2", *map(str, case.args)], cwd=root,
                           capture_output=True, text=True, env={**os.environ, **env})
        files = {f.relative_to(root).as_posix(): f.read_bytes() for f in sorted((root / "out").rglob("*")) if f.is_file()} \
            if (root / "out").is_dir() else {}
        results.append((p.returncode, p.stderr, files))
    assert results[0][0] == results[1][0] == case.exit, results[1][1][-2000:]
    assert results[0][1] == results[1][1]
    assert results[0][2] == results[1][2]


def _budget_run(root, jobs, budget=None):
    """`run --jobs JOBS` with the memory-budget test hook; (exit, stderr, output bytes, (peak, holders))."""
    import os
    import subprocess
    from conftest import BIN
    env = {**os.environ}
    if budget is not None:
        env["MOTIONPREP_TEST_MEMORY_BUDGET"] = str(budget)
    p = subprocess.run([BIN, "run", "pipeline.yaml", "--quiet", "--jobs", str(jobs), "--out", f"out-{jobs}-{budget}"],
                       cwd=root, capture_output=True, text=True, env=env)
    out = root / f"out-{jobs}-{budget}"
    files = {f.relative_to(out).as_posix(): f.read_bytes() for f in sorted(out.rglob("*")) if f.is_file()} \
        if out.is_dir() else {}
    m = re.search(r"test hook: memory budget peak (\d+) of \d+ values, at most (\d+) recording", p.stderr)
    return p.returncode, p.stderr, files, (int(m.group(1)), int(m.group(2))) if m else None


def test_memory_budget_is_run_wide(tmp_path):
    """Issue 14 §8 (docs/hardening.md §3): the memory budget holds per run, not per recording ×
    jobs. Six identical recordings, each needing 60 % of a lowered budget, run with --jobs 2 one
    at a time and give the bytes of --jobs 1; a budget below one recording's grid is the
    per-recording resource limit's error."""
    (tmp_path / "data").mkdir()
    for i in range(6):
        (tmp_path / f"data/r{i}.csv").write_bytes(MC_HEADER + mc_rows(3000))
    (tmp_path / "pipeline.yaml").write_text(pipeline())
    # What one recording reserves: with a budget none reaches, every reservation is the same R,
    # so the peak is R times the most recordings holding one at once.
    code, err, reference, (peak, holders) = _budget_run(tmp_path, 1, budget=1 << 40)
    assert code == 0, err
    one = peak // holders
    assert one * holders == peak and one > 0
    budget = int(one / 0.6)
    code, err, files, (peak, holders) = _budget_run(tmp_path, 2, budget=budget)
    assert code == 0, err
    assert holders == 1 and peak == one, (peak, holders, budget)
    assert files == reference
    code, err, files, _ = _budget_run(tmp_path, 2)
    assert code == 0 and files == reference
    # Smaller than one recording's grid (1500 points x 3 channels): the resource limit's message.
    code, err, files, _ = _budget_run(tmp_path, 2, budget=1000)
    assert code == 65, err
    assert re.search(r"^data/r0\.csv:3001: error: recording `r0` runs from 0\.0 s \(data/r0\.csv:2\) to 29\.99 s here, "
                     r"a grid of 1500\.5 points × 3 channel\(s\) at 50 Hz, more than the 1000 values motionprep accepts for one "
                     r"recording \(a resource limit\)", err, re.M), err
    assert not files


def test_windows_reach_the_writer_in_memory_or_from_their_records_with_the_same_bytes(tmp_path):
    """Issue 25 point 7 (docs/hardening.md, "Records"): a recording's windows go to the writer in
    memory, its record file written behind and not read back; when a later block does not fit
    the run's memory budget the writer reads the record file back instead. Three recordings of
    three blocks each (over 8192 windows of 5 samples, one every sample): with room every one is
    handed over in memory; under a budget smaller than one recording's reservation (which then
    runs alone, holding all of it) no later block fits and every one is read back, with the same
    bytes."""
    (tmp_path / "data").mkdir()
    for i in range(3):
        (tmp_path / f"data/r{i}.csv").write_bytes(MC_HEADER + mc_rows(20_000))
    (tmp_path / "pipeline.yaml").write_text(pipeline(window="{length_s: 0.1, stride_s: 0.02}"))
    code, err, roomy, _ = _budget_run(tmp_path, 2, budget=1 << 40)
    assert code == 0, err
    assert "; 0 recording(s) read back from their record files" in err, err
    assert sum(s["num_windows"] for s in json.loads(roomy["manifest.json"])["splits"].values()) > 3 * 8192
    code, err, tight, (peak, holders) = _budget_run(tmp_path, 2, budget=200_000)
    assert code == 0, err
    assert holders == 1 and peak == 200_000, (peak, holders)
    assert "; 3 recording(s) read back from their record files" in err, err
    assert tight == roomy


def test_window_seconds_that_round_are_said_once_with_the_values_used(tmp_path):
    """Issue 29 point 7: at 2 Hz, a 2.56 s window is 5.12 samples and a 1.28 s stride 2.56: the
    run uses 5 and 3 samples (2.5 s and 1.5 s) and says so in one warning, which
    `ignore_warnings: [window_rounding]` silences; whole numbers of samples say nothing."""
    import subprocess
    from conftest import BIN
    (tmp_path / "data").mkdir()
    (tmp_path / "data/r0.csv").write_bytes(MC_HEADER + mc_rows(3000))

    def run(window, extra=""):
        (tmp_path / "pipeline.yaml").write_text(pipeline(window=window, rate="2", extra=extra))
        p = subprocess.run([BIN, "run", "pipeline.yaml", "--out", "out"], cwd=tmp_path, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        lines = p.stderr.splitlines()
        at = [i for i, line in enumerate(lines) if "window.length_s" in line or "window.stride_s" in line]
        return [lines[i] for i in at] + [lines[i + 1] for i in at if i + 1 < len(lines)]

    lines = run("{length_s: 2.56, stride_s: 1.28}")
    assert lines == ["motionprep: warning: `window.length_s` 2.56 s is 5.12 samples at 2 Hz, so 5 samples (2.5 s); "
                     "`window.stride_s` 1.28 s is 2.56 samples at 2 Hz, so 3 samples (1.5 s) are used",
                     "  if this is intended, add `window_rounding` to `ignore_warnings` in the pipeline to silence it"], lines
    assert run("{length_s: 2.56, stride_s: 1.28}", extra="ignore_warnings: [window_rounding]\n") == []
    assert run("{length_s: 2.5, stride_s: 1.5}") == []
    assert run("{length_s: 2.56}")[0].count("samples at 2 Hz") == 1
