#!/usr/bin/env bash
# Builds the libFuzzer targets of motionprep (docs/hardening.md).
#
# SwiftPM cannot build an executable with `-sanitize=fuzzer` (libFuzzer brings its own `main`),
# so this script compiles the library modules a target needs straight from Sources/ with
# swiftc, each as its own module (as SwiftPM would), instrumented for libFuzzer and
# AddressSanitizer, then links one executable per target whose only entry point is
# `LLVMFuzzerTestOneInput` (exported with `@_cdecl`).
#
# Optimisation: RELEASE_OPT below is exactly what `swift build -c release` gives every Swift
# target (Package.swift sets no `unsafeFlags`): checked `-O`, whole module. So the code fuzzed
# is the code shipped, overflow and bounds checks included: an integer overflow or an
# out-of-range index traps here as it would in the release binary, and the only unchecked
# arithmetic and indexing are the `_*Kernels` files' wrapping operators and pointers, in both.
# Change the two together (docs/hardening.md, "Data safety: the shipped binary is the fuzzed one").
#
#   Fuzz/build.sh [OUT_DIR]      default OUT_DIR: .build/fuzz
#
# Outputs OUT_DIR/fuzz-{csv,motioncollector,iio,pipeline,compressed,cwa,gt3x}.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/.build/fuzz}"
mkdir -p "$OUT/modules" "$OUT/obj" "$OUT/cfastfloat"
SWIFTC="${SWIFTC:-swiftc}"
CLANGXX="${CLANGXX:-clang++}"
RELEASE_OPT=(-O -wmo)   # = SwiftPM's release configuration; keep in step with Package.swift
SAN=(-sanitize=fuzzer,address -parse-as-library "${RELEASE_OPT[@]}" -package-name motionprep -swift-version 6)
S="$ROOT/Sources"

# CFastFloat: a C++ target behind a C header; compile it with clang++ and give Swift a module map.
"$CLANGXX" -std=c++17 -O1 -g -fsanitize=fuzzer-no-link,address -I "$S/CShims/CFastFloat/include" \
  -c "$S/CShims/CFastFloat/CFastFloat.cpp" -o "$OUT/obj/CFastFloat.o"
cp "$S/CShims/CFastFloat/include/CFastFloat.h" "$OUT/cfastfloat/"
printf 'module CFastFloat {\n    header "CFastFloat.h"\n    export *\n}\n' > "$OUT/cfastfloat/module.modulemap"

# One Swift module: name, sources. Emits OUT/modules/NAME.swiftmodule and OUT/obj/NAME.o.
module() {
  local name="$1"; shift
  "$SWIFTC" "${SAN[@]}" -module-name "$name" -emit-module -emit-module-path "$OUT/modules/$name.swiftmodule" \
    -I "$OUT/modules" -I "$OUT/cfastfloat" -I "$S/CShims/CYAML" "${CSHIMS[@]}" \
    -c "$@" -o "$OUT/obj/$name.o"
}
# The decompressors' system libraries (MotionDecompress, under MotionIngest).
CSHIMS=(-I "$S/CShims/CZlib" -I "$S/CShims/CZstd" -I "$S/CShims/CLzma" -I "$S/CShims/CBzip2")
CLIBS=(-lz -lzstd -llzma -lbz2)
module MotionCore "$S"/MotionCore/*.swift
module MotionDecompress "$S"/MotionDecompress/*.swift
module MotionIngest "$S"/MotionIngest/*.swift
module MotionYAML "$S"/MotionYAML/*.swift
# MotionConfig describes stage options with MotionResample's and MotionLabels' types.
module MotionResample "$S"/MotionResample/*.swift
module MotionLabels "$S"/MotionLabels/*.swift
module MotionConfig "$S"/MotionConfig/*.swift

# One executable per target: NAME, entry file, objects.
target() {
  local name="$1" entry="$2"; shift 2
  local objs=()
  for m in "$@"; do objs+=("$OUT/obj/$m.o"); done
  "$SWIFTC" "${SAN[@]}" -module-name "Fuzz_${name//-/_}" -I "$OUT/modules" -I "$OUT/cfastfloat" -I "$S/CShims/CYAML" "${CSHIMS[@]}" \
    "$ROOT/Fuzz/Targets/FuzzSupport.swift" "$entry" "${objs[@]}" -lyaml "${CLIBS[@]}" -lstdc++ -o "$OUT/fuzz-$name" 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }
}
target csv "$ROOT/Fuzz/Targets/CSVTarget.swift" MotionCore MotionDecompress MotionIngest CFastFloat
target motioncollector "$ROOT/Fuzz/Targets/MotionCollectorTarget.swift" MotionCore MotionDecompress MotionIngest CFastFloat
target iio "$ROOT/Fuzz/Targets/IIOTarget.swift" MotionCore MotionDecompress MotionIngest CFastFloat
target pipeline "$ROOT/Fuzz/Targets/PipelineTarget.swift" MotionCore MotionDecompress MotionIngest CFastFloat MotionYAML MotionResample MotionLabels MotionConfig
target compressed "$ROOT/Fuzz/Targets/CompressedTarget.swift" MotionCore MotionDecompress MotionIngest CFastFloat
target cwa "$ROOT/Fuzz/Targets/CWATarget.swift" MotionCore MotionDecompress MotionIngest CFastFloat
target gt3x "$ROOT/Fuzz/Targets/GT3XTarget.swift" MotionCore MotionDecompress MotionIngest CFastFloat
echo "built: $(cd "$OUT" && ls fuzz-* | grep -v "\.log$" | tr "\n" " ")"
