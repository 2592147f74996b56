"""`make install` (issue 17 point 1): a binary that runs without the Swift toolchain, the shell
completions where bash, zsh and fish look for them, and `motionprep help CMD`.

`make test` stages an install in .build/install-test (`make install-test`) and hands its prefix
in MOTIONPREP_INSTALLED; without it these tests are skipped (run `make install-test` first)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, motionprep

PREFIX = os.environ.get("MOTIONPREP_INSTALLED")
needs_install = pytest.mark.skipif(not PREFIX or not Path(PREFIX, "bin/motionprep").exists(),
                                   reason="no staged install: run `make install-test` (make test does)")
COMMANDS = ["run", "validate", "inspect", "merge", "synth", "report", "completions"]


def installed(*parts):
    return Path(PREFIX, *parts)


@needs_install
def test_the_binary_needs_no_swift_library():
    needed = subprocess.run(["readelf", "-d", installed("bin/motionprep")], capture_output=True, text=True, check=True).stdout
    libs = re.findall(r"Shared library: \[(.*?)\]", needed)
    assert libs, needed
    swift = [l for l in libs if re.match(r"lib(swift|Foundation|dispatch|BlocksRuntime|_Foundation|FoundationEssentials|FoundationInternationalization)", l)]
    assert not swift, f"the installed binary still needs {swift}"
    assert "RUNPATH" not in needed or "swift" not in needed.split("RUNPATH")[1].split("\n")[0]


@needs_install
def test_the_binary_runs_with_the_toolchain_hidden(tmp_path):
    """A mount namespace with an empty folder over the Swift toolchain: what a machine without
    it looks like to the binary."""
    swift = shutil.which("swift")
    if not swift or not shutil.which("unshare"):
        pytest.skip("no swift or unshare on PATH")
    toolchain = Path(os.path.realpath(swift)).parents[2]  # …/usr/bin/swift-driver → the toolchain root
    bin = installed("bin/motionprep")
    script = f"mount -t tmpfs none {toolchain} && exec {bin} synth --out {tmp_path}/data --subjects 1 --recordings 1 --minutes 0.1"
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    if p.returncode != 0 and ("Operation not permitted" in p.stderr or "unshare failed" in p.stderr):
        pytest.skip(f"cannot make a mount namespace here: {p.stderr.strip()}")
    assert p.returncode == 0, p.stderr
    assert list((tmp_path / "data").rglob("*.csv"))


@needs_install
def test_completions_are_where_the_shells_look():
    for rel in ["share/bash-completion/completions/motionprep", "share/zsh/site-functions/_motionprep",
                "share/fish/vendor_completions.d/motionprep.fish"]:
        assert installed(rel).stat().st_size > 0, rel


def bash_complete(script, line):
    """COMPREPLY for the command line `line` (completing its last word) in a real bash."""
    words = line.split(" ")
    program = f"""
source {script}
COMP_WORDS=({' '.join(repr(w) if w else "''" for w in words)})
COMP_CWORD={len(words) - 1}
_motionprep
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    p = subprocess.run(["bash", "-c", program], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return [l for l in p.stdout.split("\n") if l]


def completion_script(tmp_path, shell):
    path = tmp_path / f"completion.{shell}"
    path.write_text(motionprep("completions", shell).stdout)
    return path


def test_bash_completes_commands_options_and_values(tmp_path):
    script = completion_script(tmp_path, "bash")
    assert set(bash_complete(script, "motionprep ")) >= {"run", "validate", "inspect", "help", "completions", "--version"}
    assert "run" in bash_complete(script, "motionprep r") and "report" in bash_complete(script, "motionprep r")
    assert set(bash_complete(script, "motionprep run --")) >= {"--jobs", "--out", "--worker", "--resume", "--quiet", "--json"}
    assert bash_complete(script, "motionprep validate build/walk --format j") == ["json", "junit"]
    assert bash_complete(script, "motionprep completions ") == ["bash", "zsh", "fish"]


def test_fish_completes_commands_and_options(tmp_path):
    if not shutil.which("fish"):
        pytest.skip("fish is not installed (make test-deps installs it)")
    script = completion_script(tmp_path, "fish")
    def complete(line):
        p = subprocess.run(["fish", "--no-config", "-c", f"source {script}; complete -C {line!r}"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        return [l.split("\t")[0] for l in p.stdout.split("\n") if l]
    assert {"run", "report"} <= set(complete("motionprep r"))
    assert "--resume" in complete("motionprep run --re")
    assert set(complete("motionprep validate x --format ")) == {"text", "json", "junit"}


def test_zsh_script_parses(tmp_path):
    if not shutil.which("zsh"):
        pytest.skip("zsh is not installed (make test-deps installs it)")
    script = completion_script(tmp_path, "zsh")
    p = subprocess.run(["zsh", "-n", script], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert script.read_text().startswith("#compdef motionprep")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_in_a_commands_help_is_completed(tmp_path, command):
    """The completions come from the same table as the argument scanners: every option a
    command's help text names is offered for that command, in all three shells."""
    help_text = motionprep(command, "--help").stdout
    # The options a command takes: those in its usage lines and in its option table (lines that
    # start with an option), not ones named in prose (merge's help mentions `run --worker`).
    lines = help_text.split("\n")
    first = next(i for i, l in enumerate(lines) if l.startswith("usage:"))
    usage = []
    for i in range(first, len(lines)):
        if not lines[i].strip():
            break
        usage.append(i)
    text = "\n".join(lines[i] for i in usage) + "\n" + "\n".join(l for l in lines if re.match(r"^\s+-", l))
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-o)(?=[ ,\]\n=]|$)", text)) - {"--help"}
    assert options or command == "completions"
    bash = completion_script(tmp_path, "bash").read_text()
    fish = completion_script(tmp_path, "fish").read_text()
    for o in options:
        assert o in bash, (command, o)
        flag = f"-l {o[2:]}" if o.startswith("--") else f"-s {o[1:]}"
        assert f"__fish_seen_subcommand_from {command}' {flag}" in fish, (command, o)
    # …and every option completed is one the help describes.
    for m in re.finditer(rf"__fish_seen_subcommand_from {command}' -([ls]) (\S+)", fish):
        option = ("--" if m.group(1) == "l" else "-") + m.group(2)
        assert option in help_text, (command, option)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_command_shows_the_commands_help(command):
    assert motionprep("help", command).stdout == motionprep(command, "--help").stdout


def test_help_with_an_unknown_command_suggests_one():
    p = motionprep("help", "rnu", check=False)
    assert p.returncode == 64 and "did you mean `run`?" in p.stderr
    p = motionprep("completions", "tcsh", check=False)
    assert p.returncode == 64 and "bash, zsh and fish" in p.stderr
