# motionprep — build, run, test, bench.
#
#   make run     install what is missing, build (release) and run pipelines/walk.yaml
#   make test    the whole test suite: Swift tests, then the Python interop checks (and the python/ package)
#   make bench   benchmarks against pandas (every column; usecols + dtypes) and polars, with numpy + h5py,
#                and the parse alone in polars and DuckDB; on 6-decimal and on 17-digit (phone) values
#   make fuzz    libFuzzer + ASan targets for the readers and the pipeline loader, FUZZ_SECONDS each
#   make install PREFIX=/usr/local   the binary (Swift runtime linked in), shell completions
#
# System packages come from Debian. When pkg-config cannot find one, `make deps` installs it as
# root (apt-get) or prints the exact command and stops.

SWIFT        ?= swift
PYTHON       ?= python3
VENV         := .venv
VPY          := $(VENV)/bin/python
RELEASE_BIN  := .build/release/motionprep
PKGS         := libhdf5-dev libzstd-dev zlib1g-dev liblzma-dev libbz2-dev libyaml-dev libssl-dev libdeflate-dev libxxhash-dev libfast-float-dev pkg-config zstd
# Only for the tests: a one-node Slurm cluster (tests/python/test_slurm.py), Chromium for the
# report's screenshots (Tests/MotionReportTests), zsh and fish for the completions
# (tests/python/test_install.py). `make run` installs none of them.
TEST_PKGS    := slurm-wlm munge chromium zsh fish
# `make test` writes each phase's output here (tests/make/phase) and ends with tests/make/summary.
TEST_LOGS    := build/test-logs
PHASE        := TEST_LOGS=$(TEST_LOGS) tests/make/phase
PREFIX       ?= /usr/local
DESTDIR      ?=
# The Swift runtime and Foundation are linked into the binary, so it runs on a machine without
# the Swift toolchain; the C libraries come from the Debian packages the README names.
STATIC       := --static-swift-stdlib
PY_PKGS      := numpy scipy h5py zstandard pytest pyyaml webdataset datasets polars duckdb actfast pygt3x actipy 'setuptools>=70.1'
# PyTorch, for the DataLoader tests of the Python package (tests/python/test_python_package.py).
# PyPI's only Linux x86-64 torch is the CUDA build: torch 2.15 pulls ~2.8 GB of wheels (nvidia-*,
# triton) and takes 5.4 GB in the venv, because its libraries link the CUDA ones (with --no-deps
# `import torch` fails). It is installed once per venv, with its own stamp, without byte-compiling.
TORCH_PKG    ?= torch
# The motionprep Python package: reinstalled into the venv whenever one of these files changes.
PY_SRC       := python/pyproject.toml python/README.md $(filter-out %/__pycache__,$(wildcard python/src/motionprep/*))

.PHONY: all deps test-deps build install uninstall install-test run test test-builds swift-test asan-test interop-test validate-pipelines validate-sample venv bench fuzz fuzz-build clean

all: build

deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"; \
	for pc in hdf5 libzstd zlib liblzma yaml-0.1 libcrypto libdeflate libxxhash; do \
	  pkg-config --exists $$pc 2>/dev/null || missing="$$missing $$pc"; \
	done; \
	[ -f /usr/include/fast_float/fast_float.h ] || missing="$$missing fast_float"; \
	[ -f /usr/include/bzlib.h ] || missing="$$missing bzlib"; \
	command -v zstd >/dev/null 2>&1 || missing="$$missing zstd"; \
	if [ -n "$$missing" ]; then \
	  echo "missing system packages ($$missing)"; \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "installing: apt-get install -y $(PKGS)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PKGS); \
	  else \
	    echo "run as root:  apt-get update && apt-get install -y $(PKGS)"; exit 1; \
	  fi; \
	fi

# The packages only the tests use, installed the same way: slurm-wlm and munge for the one-node
# Slurm cluster of tests/python/test_slurm.py (which skips, saying so, where they are missing).
test-deps:
	@missing=""; \
	for cmd in munged mungekey slurmctld slurmd sbatch chromium zsh fish; do \
	  command -v $$cmd >/dev/null 2>&1 || [ -x /usr/sbin/$$cmd ] || missing="$$missing $$cmd"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "missing test packages ($$missing)"; \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "installing: apt-get install -y $(TEST_PKGS)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TEST_PKGS); \
	  else \
	    echo "run as root:  apt-get update && apt-get install -y $(TEST_PKGS)"; exit 1; \
	  fi; \
	fi

# The one line dropped from the build's output is the linker's "the use of `mktemp' is dangerous":
# it comes from the static Foundation (FoundationEssentials' Data+Writing.swift.o), not from
# motionprep, which creates its files with open(O_CREAT|O_EXCL) (docs/hardening.md). The build's
# own exit status is kept.
build: deps
	@echo "$(SWIFT) build -c release --product motionprep $(STATIC)"
	@mkdir -p .build; { $(SWIFT) build -c release --product motionprep $(STATIC) 2>&1; echo $$? > .build/.build-status; } \
	  | grep --line-buffered -v "use of .mktemp. is dangerous"; exit $$(cat .build/.build-status)

# The binary and its completions; DESTDIR for staged installs (packaging, the tests).
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/motionprep
	$(RELEASE_BIN) completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/motionprep
	$(RELEASE_BIN) completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_motionprep
	$(RELEASE_BIN) completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/motionprep.fish
	@echo "installed $(DESTDIR)$(PREFIX)/bin/motionprep (try: motionprep help)"
	@case "$(PREFIX)" in /usr|/usr/local) ;; *) \
	  echo "completions: bash finds them through XDG_DATA_DIRS (add $(PREFIX)/share), zsh needs"; \
	  echo "  fpath=($(PREFIX)/share/zsh/site-functions \$$fpath) before compinit in ~/.zshrc, and fish"; \
	  echo "  reads $(PREFIX)/share/fish/vendor_completions.d when $(PREFIX)/share is in XDG_DATA_DIRS";; esac

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/motionprep $(DESTDIR)$(PREFIX)/share/bash-completion/completions/motionprep \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_motionprep $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/motionprep.fish

run: build
	$(RELEASE_BIN) run pipelines/walk.yaml

$(VENV)/.ok:
	@$(PHASE) venv sh -c "$(PYTHON) -m venv $(VENV) && $(VPY) -m pip install -q --upgrade pip && $(VPY) -m pip install -q $(PY_PKGS)"
	@touch $@

$(VENV)/.torch-ok: $(VENV)/.ok
	@$(PHASE) torch $(VPY) -m pip install -q --no-compile $(TORCH_PKG)
	@touch $@

# `pip install ./python` without build isolation (setuptools is in the venv, nothing to download);
# python/build/ is removed first so that a file deleted from python/src cannot linger in the wheel.
$(VENV)/.motionprep-py: $(VENV)/.ok $(PY_SRC) | $(VENV)/.torch-ok
	@rm -rf python/build
	@$(PHASE) python-package sh -c "$(VPY) -m pip install -q 'setuptools>=70.1' && $(VPY) -m pip install -q --no-build-isolation ./python"
	@touch $@

venv: $(VENV)/.ok $(VENV)/.torch-ok $(VENV)/.motionprep-py

# The venv (on a fresh machine ~2.8 GB of torch wheels: network and disk) is made while the Swift
# builds (CPU) run, then the tests run one after another.
# (No --output-sync: each phase prints whole lines naming itself, so the two can interleave, and
# a phase's start line is seen when it starts.)
# Each phase prints a line when it starts and one when it ends, with its time and counts; the tools'
# output goes to $(TEST_LOGS)/PHASE.log (the end of it is printed when a phase fails). After a
# failure the phases that do not depend on it still run (-k), and the summary ends with the line
# `N passed, N failed`; make's exit status is that of the first failure.
test: deps test-deps
	@rm -rf $(TEST_LOGS) && mkdir -p $(TEST_LOGS) && date +%s > $(TEST_LOGS)/started
	@$(MAKE) --no-print-directory -j2 venv test-builds && \
	  $(MAKE) --no-print-directory -k swift-test asan-test validate-pipelines validate-sample install-test interop-test; \
	  status=$$?; python3 tests/make/summary $(TEST_LOGS); exit $$status

# Every build the tests need, one after another (they share the two cores).
test-builds: deps
	@$(PHASE) build-tests $(SWIFT) build --build-tests
	@$(PHASE) build-asan env MOTIONPREP_ASAN_SUBSET=1 $(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	@$(PHASE) build-release $(SWIFT) build -c release --product motionprep $(STATIC)
	@$(PHASE) build-live $(SWIFT) build --package-path examples/live

# `make install` into a staging folder; tests/python/test_install.py checks what it wrote.
install-test: build
	rm -rf .build/install-test
	@$(PHASE) install-test $(MAKE) --no-print-directory install DESTDIR=$(abspath .build/install-test) PREFIX=/usr/local

# HDF5 file locking stays on for the tests too: MotionHDF5 marks the descriptors libhdf5 opens
# close-on-exec, so a child process spawned by one test no longer inherits another test's lock
# (Tests/MotionHDF5Tests/HDF5ChildProcessTests.swift).
# HDF5 locks its files with flock() and cannot open them close-on-exec: a child that another
# test thread spawns while libhdf5 is inside open() inherits the lock (HDF5File marks the
# descriptor close-on-exec right after, which closes all but that window). With tests spawning
# Python children in parallel the window is hit now and then, so the suite runs without HDF5
# locking, and the locking test (HDF5ChildProcessTests) runs again alone, with locking on.
swift-test:
	@$(PHASE) swift-test env HDF5_USE_FILE_LOCKING=FALSE MOTIONPREP_PYTHON=$(abspath $(VPY)) $(SWIFT) test
	@$(PHASE) swift-test-locking env MOTIONPREP_PYTHON=$(abspath $(VPY)) $(SWIFT) test --skip-build --filter HDF5ChildProcessTests

# The reader, YAML and pipeline-loader tests again under AddressSanitizer (docs/hardening.md), in
# their own scratch path so that the normal build is not invalidated. MOTIONPREP_ASAN_SUBSET makes
# the package only those three test targets and what they need (Package.swift), so the build
# compiles about a third of the code. Leak checking is off: the only leak LeakSanitizer reports is
# XCTest's own (its empty "Selected tests" run), not ours.
asan-test: deps
	@$(PHASE) asan-test env MOTIONPREP_ASAN_SUBSET=1 ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --scratch-path .build/asan

validate-pipelines: build
	@$(PHASE) validate-pipelines $(RELEASE_BIN) validate pipelines/*.yaml

# The README's main job on the shipped sample, then the dataset gate CI relies on.
validate-sample: build
	@$(PHASE) validate-sample sh -ec '\
	  $(RELEASE_BIN) run pipelines/walk.yaml --quiet; \
	  $(RELEASE_BIN) validate build/walk --expect expectations/walk.yaml; \
	  $(RELEASE_BIN) run pipelines/stairs.yaml --quiet; \
	  $(RELEASE_BIN) validate build/stairs; \
	  $(RELEASE_BIN) run pipelines/uci-har-style.yaml --quiet; \
	  $(RELEASE_BIN) validate build/uci-har-style'

interop-test: build venv
	@$(PHASE) interop-test env MOTIONPREP_BIN=$(abspath $(RELEASE_BIN)) MOTIONPREP_INSTALLED=$(abspath .build/install-test)/usr/local \
	  MOTIONPREP_LIVE_REPLAY=$(abspath examples/live/.build/debug/live-replay) \
	  $(VPY) -m pytest -q -rfEs tests/python

# bench.py also builds bench/fastfloat_ref.cpp (g++ -O2, fast_float headers from `deps`) and prints
# that bare C++ loop's MB/s next to the reader's, on the same files: the ratio holds across machines.
# It times the end-to-end runs (motionprep, pandas, pandas usecols, polars, polars parse only,
# duckdb parse only) through bench/timed.c (cc), so that no run is charged bench.py's own peak
# memory. Two workloads: values to 6 decimals (749 MB) and, without the stage timings, the same
# recordings with values as phones write them, 17 significant digits (`synth --precision full`,
# 1.39 GB); docs/performance.md.
bench: deps venv
	$(VPY) -m pip install -q pandas polars duckdb tsfel >/dev/null 2>&1 || echo "(pandas/polars/duckdb/tsfel not all installable; bench.py needs pandas, polars and duckdb)"
	$(SWIFT) build -c release $(STATIC)
	MOTIONPREP_BIN=$(abspath $(RELEASE_BIN)) $(VPY) bench/bench.py
	MOTIONPREP_BIN=$(abspath $(RELEASE_BIN)) $(VPY) bench/bench.py --precision full --skip-stages
	MOTIONPREP_BIN=$(abspath $(RELEASE_BIN)) $(VPY) bench/long_recording.py

# libFuzzer targets (Fuzz/build.sh compiles them with swiftc -sanitize=fuzzer,address), each run
# FUZZ_SECONDS from its seed corpus in Fuzz/corpus/; fails when a target crashes.
FUZZ_SECONDS ?= 60
fuzz-build: deps
	Fuzz/build.sh .build/fuzz

fuzz: fuzz-build
	Fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf .build build
