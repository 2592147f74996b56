// swift-tools-version: 6.0
// motionprep: motion-sensor recordings → windowed training datasets.
//
// Dependencies point one way only:
//   C shims (C*) ← wrappers (MotionYAML, MotionHDF5, MotionZstd, MotionChecksum, MotionFFT, MotionDeflate,
//   MotionDecompress)
//   ← MotionCore ← stages (MotionIngest, MotionResample, MotionWindowing, MotionLabels,
//      MotionFeatures, MotionSinks) ← MotionConfig ← the engine and the job (MotionOutput ← MotionInputs
//      ← MotionRecords ← MotionEngine ← MotionInspect ← MotionDraft ← MotionJob) ← MotionprepCLI ← motionprep
//   MotionDataset (the dataset format: schema, manifest, file readers) sits on MotionCore, MotionHDF5,
//   MotionSinks and MotionChain (the manifest's typed `chain`); the job, MotionValidate, MotionReport
//   and MotionprepCLI import it.
//   MotionLive (the live library for apps) sits on MotionCore and the signal stages only
//   (MotionResample, MotionWindowing, MotionFeatures → MotionFFT → CKissFFT, vendored source).
// No outside Swift packages: SwiftPM cannot fetch them here. C libraries come from Debian
// (`make deps` installs them) and are found with pkg-config.
import PackageDescription

// MARK: - C libraries (system-library targets; each has a shim header, no logic)

let cTargets: [Target] = [
    .systemLibrary(name: "CHDF5", path: "Sources/CShims/CHDF5", pkgConfig: "hdf5",
                   providers: [.apt(["libhdf5-dev"])]),
    .systemLibrary(name: "CZstd", path: "Sources/CShims/CZstd", pkgConfig: "libzstd",
                   providers: [.apt(["libzstd-dev"])]),
    .systemLibrary(name: "CYAML", path: "Sources/CShims/CYAML", pkgConfig: "yaml-0.1",
                   providers: [.apt(["libyaml-dev"])]),
    .systemLibrary(name: "CCrypto", path: "Sources/CShims/CCrypto", pkgConfig: "libcrypto",
                   providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CDeflate", path: "Sources/CShims/CDeflate", pkgConfig: "libdeflate",
                   providers: [.apt(["libdeflate-dev"])]),
    // Compressed text inputs (docs/inputs.md, "Compressed files"): gzip, xz and bzip2 (zstd is
    // CZstd). Debian's libbz2-dev ships no .pc file, so CBzip2 links `bz2` by name.
    .systemLibrary(name: "CZlib", path: "Sources/CShims/CZlib", pkgConfig: "zlib",
                   providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(name: "CLzma", path: "Sources/CShims/CLzma", pkgConfig: "liblzma",
                   providers: [.apt(["liblzma-dev"])]),
    .systemLibrary(name: "CBzip2", path: "Sources/CShims/CBzip2",
                   providers: [.apt(["libbz2-dev"])]),
    // XXH3, the checksum of motionprep's internal record files (docs/hardening.md, "Records").
    .systemLibrary(name: "CXXHash", path: "Sources/CShims/CXXHash", pkgConfig: "libxxhash",
                   providers: [.apt(["libxxhash-dev"])]),
    // kissfft, vendored (Sources/CKissFFT/README.md): the one C library the MotionLive product
    // needs, so it must build in an iOS/watchOS app, where no Debian package exists.
    .target(name: "CKissFFT", path: "Sources/CKissFFT", exclude: ["kissfft", "README.md"],
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
    // fast_float (libfast-float-dev, header-only C++) behind a plain C header: a regular C++
    // target, so no Swift/C++ interop flags leak into the importer. Only MotionIngest uses it.
    .target(name: "CFastFloat", path: "Sources/CShims/CFastFloat"),
]

// MARK: - Swift modules

// Release builds are plain checked `-O` (SwiftPM's default) for every target: no `unsafeFlags`
// anywhere, so that other packages can depend on the library, and the shipped binary is compiled
// as the fuzzed one is (`RELEASE_OPT=(-O -wmo)` in Fuzz/build.sh: change the two together;
// docs/hardening.md, "Data safety: the shipped binary is the fuzzed one"). Unchecked arithmetic
// and indexing live only in the `_*Kernels` files (wrapping operators, pointers over counts
// checked before), which tests and fuzzing cover.

let swiftTargets: [Target] = [
    // Wrappers: the only importers of C.
    .target(name: "MotionYAML", dependencies: ["CYAML"]),
    .target(name: "MotionHDF5", dependencies: ["CHDF5", "MotionCore"]),
    .target(name: "MotionZstd", dependencies: ["CZstd", "MotionCore"]),
    .target(name: "MotionChecksum", dependencies: ["CCrypto", "CXXHash", "MotionCore"]),
    .target(name: "MotionFFT", dependencies: ["CKissFFT"]),
    .target(name: "MotionDeflate", dependencies: ["CDeflate", "MotionCore"], exclude: ["README.md"]),
    // Streaming decoders of compressed text inputs (gzip, zstd, xz, bzip2), and raw deflate for the
    // members of GT3X archives (RawInflater); no MotionCore, no I/O.
    .target(name: "MotionDecompress", dependencies: ["CZlib", "CZstd", "CLzma", "CBzip2"], exclude: ["README.md"]),
    // Shared value types; no C, no I/O.
    .target(name: "MotionCore"),
    // Stages.
    .target(name: "MotionIngest", dependencies: ["MotionCore", "MotionDecompress", "CFastFloat"], exclude: ["README.md"]),
    .target(name: "MotionResample", dependencies: ["MotionCore"]),
    .target(name: "MotionWindowing", dependencies: ["MotionCore"]),
    .target(name: "MotionLabels", dependencies: ["MotionCore"]),
    .target(name: "MotionFeatures", dependencies: ["MotionCore", "MotionFFT"]),
    .target(name: "MotionSinks", dependencies: ["MotionCore", "MotionHDF5", "MotionZstd", "MotionChecksum", "MotionDeflate"]),
    .target(name: "MotionSynth", dependencies: ["MotionCore"]),
    // Device quality (docs/pipeline.md, "qa"): per-epoch statistics, non-wear, clipping and the
    // van Hees calibration, as actipy computes them. No C library, no I/O.
    .target(name: "MotionQA"),
    // The live library (docs/live.md): the dataset's processing on samples as they arrive, for
    // apps. Only stage modules and the vendored kissfft: no HDF5, zstd, YAML or libcrypto, so it
    // builds wherever Swift does (iOS and watchOS included).
    // The chain from the grid to the windows (transforms, cutting), the one the dataset's
    // engine and MotionLive both run (ARCHITECTURE.md, "The chain"). No C library.
    .target(name: "MotionChain", dependencies: ["MotionCore", "MotionResample", "MotionWindowing"]),
    .target(name: "MotionLive", dependencies: ["MotionCore", "MotionResample", "MotionWindowing", "MotionFeatures", "MotionChain"]),
    // The dataset format (docs/dataset-format.md): schema, the one manifest type (read and
    // written by the same code), the one file-reader protocol with its HDF5 and shard readers
    // (on MotionSinks' ShardReader and HDF5ParallelChunkReader). Used by the pipeline, validate,
    // report and inspect. MotionChain (no C) gives it the typed `chain` record, ProcessingChain.
    .target(name: "MotionDataset", dependencies: ["MotionCore", "MotionHDF5", "MotionSinks", "MotionChain"]),
    // Configuration, orchestration, CLI.
    // MotionConfig builds inline IIO layouts (MotionIngest) to check them when a pipeline is loaded.
    // It describes stage options with the stages' own types (ResampleMethod, LabelPolicy, SignalFilters.BandType).
    .target(name: "MotionConfig", dependencies: ["MotionCore", "MotionYAML", "MotionIngest", "MotionResample", "MotionLabels"]),
    // Checks a written dataset (docs/validate.md); reads it, never writes.
    // MotionFeatures: `features.recomputed` recomputes `features` from `x` with the run's own feature code.
    .target(name: "MotionValidate", dependencies: ["MotionCore", "MotionDataset", "MotionHDF5", "MotionChecksum", "MotionYAML",
                                                   "MotionSinks",  // ShardReader: one shard reader, not two
                                                   "MotionFeatures"]),
    // The engine and the job, one module per job (ARCHITECTURE.md, "The modules"), each on the
    // ones above it: output safety ← inputs ← records ← engine ← inspect ← draft ← job.
    .target(name: "MotionOutput", dependencies: ["MotionCore", "MotionConfig", "MotionChecksum", "MotionDataset", "MotionSinks"]),
    .target(name: "MotionInputs", dependencies: [
        "MotionOutput", "MotionCore", "MotionConfig", "MotionIngest", "MotionResample", "MotionChain", "MotionFeatures", "MotionChecksum",
        "MotionDataset", "MotionSinks",
    ]),
    .target(name: "MotionRecords", dependencies: [
        "MotionInputs", "MotionOutput", "MotionCore", "MotionConfig", "MotionIngest", "MotionResample", "MotionWindowing",
        "MotionLabels", "MotionFeatures", "MotionChecksum", "MotionSinks",
    ]),
    .target(name: "MotionEngine", dependencies: [
        "MotionRecords", "MotionInputs", "MotionOutput", "MotionCore", "MotionConfig", "MotionIngest", "MotionResample",
        "MotionWindowing", "MotionChain", "MotionLabels", "MotionFeatures", "MotionSinks", "MotionQA",
    ]),
    .target(name: "MotionInspect", dependencies: ["MotionEngine", "MotionInputs", "MotionOutput", "MotionCore", "MotionConfig", "MotionIngest", "MotionResample"]),
    .target(name: "MotionDraft", dependencies: ["MotionInspect", "MotionInputs", "MotionCore", "MotionConfig", "MotionIngest"]),
    .target(name: "MotionJob", dependencies: [
        "MotionDraft", "MotionInspect", "MotionEngine", "MotionRecords", "MotionInputs", "MotionOutput",
        "MotionCore", "MotionChain", "MotionConfig", "MotionIngest", "MotionResample", "MotionChecksum", "MotionDataset", "MotionSinks",
    ]),
    // `motionprep report`: reads a written dataset, renders one self-contained HTML page.
    // Shards come through MotionSinks' ShardReader; `--recordings` timelines through MotionEngine
    // (ingest + resample per recording). The engine never imports MotionReport.
    .target(name: "MotionReport", dependencies: ["MotionCore", "MotionDataset", "MotionHDF5", "MotionSinks", "MotionConfig", "MotionEngine", "MotionInputs"],
            exclude: ["README.md"]),
    .target(name: "MotionprepCLI", dependencies: ["MotionCore", "MotionChain", "MotionDataset", "MotionConfig", "MotionJob", "MotionDraft", "MotionInspect", "MotionEngine", "MotionInputs", "MotionOutput", "MotionSynth",
                                                  "MotionValidate", "MotionReport"]),
    .executableTarget(name: "motionprep", dependencies: ["MotionprepCLI"]),
    // Stage timings for `make bench` (bench/bench.py); not part of the product.
    .executableTarget(name: "motionprep-bench", dependencies: ["MotionCore", "MotionIngest", "MotionResample", "MotionFeatures"]),
]

// MARK: - Tests (one target per module)

// Shared by the test targets only: temporary folders, a seeded generator, child processes, the venv.
// The compressors of the compressed-input fixtures are the Debian libraries' own encoders.
let testSupport: Target = .target(name: "MotionTestSupport", dependencies: ["CZlib", "CZstd", "CLzma", "CBzip2"],
                                  path: "Sources/MotionTestSupport")
// The test oracle (docs/streaming.md, "One path"): the resampler, anti-aliasing and transforms
// applied to whole streams, as motionprep's first engine did. No product depends on it.
let reference: Target = .target(name: "MotionReference", dependencies: ["MotionCore", "MotionResample"])

let testTargets: [Target] = [
    .testTarget(name: "MotionYAMLTests", dependencies: ["MotionYAML"]),
    .testTarget(name: "MotionConfigTests", dependencies: ["MotionConfig"]),
    .testTarget(name: "MotionIngestTests", dependencies: ["MotionTestSupport", "MotionIngest", "MotionDecompress"]),
    .testTarget(name: "MotionDecompressTests", dependencies: ["MotionDecompress", "MotionTestSupport"]),
    .testTarget(name: "MotionResampleTests", dependencies: ["MotionTestSupport", "MotionResample", "MotionReference"]),
    .testTarget(name: "MotionWindowingTests", dependencies: ["MotionWindowing", "MotionLabels"]),
    .testTarget(name: "MotionQATests", dependencies: ["MotionQA"]),
    .testTarget(name: "MotionSinksTests", dependencies: ["MotionSinks", "MotionHDF5", "MotionChecksum"]),
    .testTarget(name: "MotionPipelineTests", dependencies: ["MotionJob", "MotionDraft", "MotionInspect", "MotionEngine", "MotionRecords", "MotionInputs", "MotionOutput", "MotionSynth", "MotionTestSupport", "MotionConfig", "MotionCore",
                                                          "MotionIngest", "MotionReference", "MotionChecksum"]),
    .testTarget(name: "MotionprepCLITests", dependencies: ["MotionprepCLI"]),
    .testTarget(name: "MotionHDF5Tests", dependencies: ["MotionTestSupport", "MotionHDF5"]),
    .testTarget(name: "MotionHDF5FastTests", dependencies: ["MotionTestSupport", "MotionSinks", "MotionHDF5", "MotionDeflate", "MotionCore"]),
    .testTarget(name: "MotionChecksumTests", dependencies: ["MotionChecksum"]),
    .testTarget(name: "MotionSynthTests", dependencies: ["MotionSynth"]),
    .testTarget(name: "MotionValidateTests", dependencies: ["MotionValidate", "MotionDataset", "MotionChain", "MotionprepCLI", "MotionSynth", "MotionHDF5",
                                                          "MotionCore", "MotionZstd", "MotionSinks"]),
    .testTarget(name: "MotionReportTests", dependencies: ["MotionReport", "MotionDataset", "MotionprepCLI", "MotionSynth"]),
    .testTarget(name: "MotionLiveTests", dependencies: ["MotionLive", "MotionJob", "MotionDraft", "MotionInspect", "MotionEngine", "MotionRecords", "MotionInputs", "MotionOutput", "MotionDataset", "MotionSynth",
                                                      "MotionTestSupport", "MotionCore", "MotionConfig", "MotionFeatures",
                                                      "MotionResample", "MotionIngest"]),
    .testTarget(name: "MotionFeaturesTests", dependencies: ["MotionTestSupport", "MotionFeatures"], exclude: ["make_reference.py"]),
]

// `make test` runs the reader, YAML and pipeline-loader tests again under AddressSanitizer
// (Makefile, `asan-test`). With MOTIONPREP_ASAN_SUBSET set, the package is only those test targets
// and the targets they need, so that phase compiles about a third of the code instead of all of it.
// The targets are the ones above, filtered, not a second list that could drift.
let asanTests: Set<String> = ["MotionIngestTests", "MotionYAMLTests", "MotionConfigTests"]
var allTargets = cTargets + swiftTargets + [testSupport, reference] + testTargets
var products: [Product] = [
    .executable(name: "motionprep", targets: ["motionprep"]),
    // The live library for apps (docs/live.md) and the dataset reader (docs/dataset-format.md).
    // The engine and the job (MotionJob and the modules under it) are the CLI's, not libraries.
    .library(name: "MotionLive", targets: ["MotionLive"]),
    .library(name: "MotionDataset", targets: ["MotionDataset"]),
]
if Context.environment["MOTIONPREP_ASAN_SUBSET"] != nil {
    let byName = Dictionary(uniqueKeysWithValues: allTargets.map { ($0.name, $0) })
    var needed = Set<String>(), queue = Array(asanTests)
    while let name = queue.popLast() {
        guard needed.insert(name).inserted, let target = byName[name] else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let n, _), .byNameItem(let n, _): queue.append(n)
            default: break
            }
        }
    }
    allTargets = allTargets.filter { needed.contains($0.name) }
    products = []
}

let package = Package(
    name: "motionprep",
    products: products,
    targets: allTargets
)
