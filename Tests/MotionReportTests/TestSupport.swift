import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MotionCore
import MotionSynth
import MotionprepCLI
@testable import MotionReport

/// A dataset written once per test process: `Synth` (4 subjects × 1 minute, seed 3) run through
/// a pipeline like `pipelines/walk.yaml` into a temp folder.
enum Fixture {
    /// The temp folder holding `data/`, `walk.yaml` and the dataset `out/`.
    static let root: Result<String, any Error> = Result { try make() }

    static func dataset() throws -> String { try root.get() + "/out" }

    /// The same pipeline written as shards (16 windows per shard, so each split has several).
    static func shardsDataset() throws -> String { try root.get() + "/out-shards" }

    static let pipeline = """
        version: 1
        name: walk
        inputs:
          - type: motioncollector
            paths: ["data/**/*.csv"]
            subject: "{dir}"
        resample:
          rate_hz: 50
          max_gap_s: 0.2
        window:
          length_s: 2.56
          stride_s: 1.28
        labels:
          from: rows
          policy: majority
          min_fraction: 0.8
          map: {W: walk, T: turn}
          classes: [walk, turn]
        magnitude: [acc]
        split:
          by: subject
          seed: 42
          fractions: {train: 0.5, validation: 0.25, test: 0.25}
        output:
          type: hdf5
          path: out

        """

    private static func make() throws -> String {
        let dir = temporaryDirectory("fixture")
        _ = try Synth.write(SynthOptions(outDirectory: dir + "/data", subjects: 4, minutes: 1, seed: 3))
        try pipeline.write(toFile: dir + "/walk.yaml", atomically: true, encoding: .utf8)
        let status = MotionprepCommand.run(["run", dir + "/walk.yaml", "--quiet"])
        guard status == .success else { throw MotionError(.ioError, "fixture: `motionprep run` exited \(status.rawValue)") }
        let shards = pipeline.replacingOccurrences(of: "  type: hdf5\n  path: out\n",
                                                   with: "  type: shards\n  path: out-shards\n  windows_per_shard: 16\n")
        try shards.write(toFile: dir + "/walk-shards.yaml", atomically: true, encoding: .utf8)
        let shardStatus = MotionprepCommand.run(["run", dir + "/walk-shards.yaml", "--quiet"])
        guard shardStatus == .success else { throw MotionError(.ioError, "fixture: shards `motionprep run` exited \(shardStatus.rawValue)") }
        return dir
    }

    /// A fresh folder under the system temp directory.
    static func temporaryDirectory(_ tag: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("motionreport-\(tag)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The fixture's page, rendered once.
    static let rendered: Result<Report.Rendered, any Error> = Result { try Report.render(directory: try dataset()) }
}

/// The page parsed as XML, with small query helpers.
struct PageDocument {
    let root: XMLElement

    init(_ html: String) throws {
        let doc = try XMLDocument(xmlString: html, options: [])
        guard let r = doc.rootElement() else { throw MotionError(.dataError, "the page has no root element") }
        root = r
    }

    /// Every element named `name` (local name; `svg`, `rect`, …) in document order.
    func elements(_ name: String) -> [XMLElement] {
        var out: [XMLElement] = []
        func walk(_ e: XMLElement) {
            if e.localName == name { out.append(e) }
            for c in e.children ?? [] { if let ce = c as? XMLElement { walk(ce) } }
        }
        walk(root)
        return out
    }

    /// Elements named `name` whose attribute `attribute` equals `value`.
    func elements(_ name: String, where attribute: String, is value: String) -> [XMLElement] {
        elements(name).filter { $0.attr(attribute) == value }
    }
}

extension XMLElement {
    /// The attribute's value. (swift-corelibs-foundation's `attribute(forName:)` finds nothing
    /// on elements in a default namespace, so look through `attributes`.)
    func attr(_ name: String) -> String? { attributes?.first { $0.name == name }?.stringValue }

    /// Descendants (not self) named `name`.
    func descendants(_ name: String) -> [XMLElement] {
        var out: [XMLElement] = []
        func walk(_ e: XMLElement) {
            for c in e.children ?? [] {
                if let ce = c as? XMLElement { if ce.localName == name { out.append(ce) }; walk(ce) }
            }
        }
        walk(self)
        return out
    }
}
