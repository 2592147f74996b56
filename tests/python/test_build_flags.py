"""The shipped binary is compiled as the fuzzed one is (docs/hardening.md, "Data safety: the
shipped binary is the fuzzed one"): no target of Package.swift passes `unsafeFlags` (so release
builds are SwiftPM's checked `-O`, and other packages can depend on the library), and
Fuzz/build.sh compiles the modules with the same optimisation flags, never `-Ounchecked`."""
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def code_lines(path):
    """The file's lines without comments (`//` in Swift; a line starting with `#`, or ` # …`, in
    shell). Neither file has these in a string."""
    out = []
    for line in path.read_text().splitlines():
        if path.suffix == ".sh":
            line = "" if line.lstrip().startswith("#") else line.split(" # ")[0]
        else:
            line = line.split("//")[0]
        out.append(line)
    return out


def test_package_swift_has_no_unsafe_flags():
    code = "\n".join(code_lines(ROOT / "Package.swift"))
    assert "unsafeFlags" not in code
    assert "Ounchecked" not in code


def test_fuzz_build_uses_the_release_optimisation():
    lines = code_lines(ROOT / "Fuzz" / "build.sh")
    opt = [l for l in lines if l.startswith("RELEASE_OPT=")]
    assert len(opt) == 1, "Fuzz/build.sh defines RELEASE_OPT once"
    flags = shlex.split(opt[0].split("=", 1)[1].strip("() "))
    # SwiftPM's release configuration: checked -O, whole-module optimisation.
    assert flags == ["-O", "-wmo"]
    san = [l for l in lines if l.startswith("SAN=")]
    assert len(san) == 1 and '"${RELEASE_OPT[@]}"' in san[0]
    code = "\n".join(lines)
    assert "Ounchecked" not in code
    # The only other optimisation flag is clang++'s for the C++ shim (CFastFloat).
    others = re.findall(r"(?<![\w-])-O\w*", code.replace(opt[0], ""))
    assert others == ["-O1"], others
