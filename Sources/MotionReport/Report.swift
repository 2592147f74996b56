import MotionDataset
import Foundation
import MotionCore

/// `motionprep report`: one self-contained HTML page describing a written dataset.
public enum Report {
    /// A rendered page and what it was computed from.
    public struct Rendered: Sendable {
        public var html: String
        public var manifest: DatasetManifest
        public var statistics: DatasetStatistics
    }

    /// Opens the storage a manifest names: `hdf5` (docs/dataset-format.md, "HDF5 files") or `shards` (docs/dataset-format.md, "Shards").
    ///
    /// - Throws: ``ReportError`` (`.dataError`) for another storage.
    public static func openStore(directory: String, manifest: DatasetManifest) throws -> DatasetWindowStore {
        switch manifest.storage {
        case "hdf5": return try HDF5WindowStore(directory: directory, manifest: manifest)
        case "shards": return try ShardWindowStore(directory: directory, manifest: manifest)
        default:
            throw ReportError(.dataError, "`\(directory)` stores its windows as `\(manifest.storage)`; `motionprep report` reads `hdf5` and `shards` datasets")
        }
    }

    /// Reads `directory/manifest.json` and the split files and renders the page.
    ///
    /// - Parameters:
    ///   - directory: a dataset folder written by `motionprep run`.
    ///   - options: sampling and binning knobs.
    ///   - extraSections: already-rendered sections appended to the page (recording timelines).
    /// - Throws: ``ReportError``, `HDF5Error`.
    public static func render(directory: String, options: StatisticsOptions = StatisticsOptions(),
                              extraSections: [String] = []) throws -> Rendered {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) else {
            throw ReportError.missing(directory, what: "a dataset folder written by `motionprep run`")
        }
        guard isDir.boolValue else {
            throw ReportError(.usage, "`\(directory)` is a file; `motionprep report` needs a dataset folder (the one holding manifest.json)")
        }
        let manifestPath = directory + "/manifest.json"
        guard FileManager.default.fileExists(atPath: manifestPath) else {
            throw ReportError(.noInput, "`\(directory)` has no manifest.json; `motionprep report` needs a finished dataset folder written by `motionprep run`")
        }
        let manifest = try DatasetManifest.load(directory: directory)
        let store = try openStore(directory: directory, manifest: manifest)
        let statistics = try DatasetStatistics.compute(manifest: manifest, store: store, options: options)
        let html = ReportPage(manifest: manifest, statistics: statistics, extraSections: extraSections).render()
        return Rendered(html: html, manifest: manifest, statistics: statistics)
    }
}
