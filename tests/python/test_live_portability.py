"""The live library's sources import only what every Apple platform and Linux have (issue #28
point 3; docs/live.md, "Platforms").

Over every Swift file of every target in MotionLive's dependency closure (read from
`swift package dump-package`, so a new dependency is covered without editing this test):

- a platform module (Darwin, Glibc, Musl) is imported only inside an `#if canImport(…)` chain that
  imports each of the three, so the file compiles for iOS and watchOS as for Linux;
- Foundation only as `#if canImport(FoundationEssentials) import FoundationEssentials #else import
  Foundation #endif`: on Linux the file is then compiled against FoundationEssentials alone, so a
  use of API outside it fails the Linux build (where it would have compiled on Apple platforms);
- the C targets in the closure are vendored sources (no system library: no pkg-config module).

This is a check of the sources, on Linux. No Apple SDK is on this machine, so nothing here
compiles the library for iOS; docs/live.md says so."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLATFORMS = {"Darwin", "Glibc", "Musl"}


@pytest.fixture(scope="module")
def package():
    swift = shutil.which("swift")
    if swift is None:
        pytest.skip("swift is not on PATH (the Swift toolchain reads Package.swift)")
    out = subprocess.run([swift, "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def closure(package, name):
    targets = {t["name"]: t for t in package["targets"]}
    seen, todo = [], [name]
    while todo:
        n = todo.pop()
        if n in seen or n not in targets:
            continue
        seen.append(n)
        for dep in targets[n]["dependencies"]:
            for kind in ("byName", "target"):
                if kind in dep:
                    todo.append(dep[kind][0])
    return [targets[n] for n in sorted(seen)]


def source_dir(target):
    return ROOT / (target.get("path") or f"Sources/{target['name']}")


def import_problems(text):
    """Sentences for each import that breaks the rules above (empty when the file is portable)."""
    problems = []
    stack = []  # per open #if: the modules imported in its branches, and whether FoundationEssentials came first
    for no, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if line.startswith("#if"):
            stack.append({"imports": set(), "line": no, "branches": [line]})
            continue
        if line.startswith("#elseif") or line.startswith("#else"):
            if stack:
                stack[-1]["branches"].append(line)
            continue
        if line.startswith("#endif"):
            if stack:
                block = stack.pop()
                platforms = block["imports"] & PLATFORMS
                if platforms and platforms != PLATFORMS:
                    problems.append(f"line {block['line']}: an #if imports {sorted(platforms)} but not "
                                    f"{sorted(PLATFORMS - platforms)}")
                if "Foundation" in block["imports"] and not (
                        block["branches"][0].startswith("#if canImport(FoundationEssentials)")
                        and "FoundationEssentials" in block["imports"]):
                    problems.append(f"line {block['line']}: Foundation is imported, but not as the #else of "
                                    "`#if canImport(FoundationEssentials)`")
            continue
        m = re.match(r"^(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)", line)
        if not m:
            continue
        module = m.group(1)
        if stack:
            stack[-1]["imports"].add(module)
        elif module in PLATFORMS:
            problems.append(f"line {no}: `import {module}` outside an #if chain over Darwin, Glibc and Musl")
        elif module == "Foundation":
            problems.append(f"line {no}: `import Foundation` without `#if canImport(FoundationEssentials)`")
    return problems


def test_the_rules_catch_what_they_are_for():
    assert import_problems("import Glibc\n")
    assert import_problems("#if canImport(Glibc)\nimport Glibc\n#endif\n")
    assert import_problems("#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\nimport Darwin\n#endif\n")
    assert import_problems("import Foundation\n")
    assert import_problems("#if canImport(Glibc)\nimport Foundation\n#endif\n")
    assert not import_problems("#if canImport(Darwin)\nimport Darwin\n#elseif canImport(Glibc)\nimport Glibc\n"
                               "#elseif canImport(Musl)\nimport Musl\n#endif\n")
    assert not import_problems("#if canImport(FoundationEssentials)\nimport FoundationEssentials\n#else\n"
                               "import Foundation\n#endif\nimport MotionCore\n")


def test_the_live_closure_imports_portably(package):
    targets = closure(package, "MotionLive")
    names = [t["name"] for t in targets]
    # What the closure is today; a new dependency is checked too, this only shows what was read.
    assert {"MotionLive", "MotionCore", "MotionResample", "MotionChain", "MotionFFT", "CKissFFT"} <= set(names), names
    problems = []
    files = 0
    for t in targets:
        if t["type"] == "system":
            problems.append(f"{t['name']}: a system library in MotionLive's closure")
            continue
        for f in sorted(source_dir(t).rglob("*.swift")):
            files += 1
            for p in import_problems(f.read_text()):
                problems.append(f"{f.relative_to(ROOT)}: {p}")
    assert files > 20
    assert not problems, "\n".join(problems)
