import Foundation
import MotionChain
import MotionCore
import MotionDataset
@testable import MotionprepCLI
import MotionSynth
import Testing

/// The manifest's `chain` is one typed value, `ProcessingChain` (docs/dataset-format.md, "The
/// processing chain"): what `run` writes decodes into it and encodes back to the same bytes, for
/// every shipped pipeline, and a value of the wrong type names its key path.
@Suite struct ProcessingChainTests {
    /// The repository's `pipelines/` and `datasets/`.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// `pipelines/NAME.yaml` run into a temporary folder: the walk pipelines on synthetic
    /// MotionCollector recordings (4 subjects × 30 s), `stairs` on the repository's sample CSVs.
    /// Returns the manifest's bytes.
    static func runShipped(_ name: String) throws -> [UInt8] {
        let root = makeTemporaryDirectory("chain-\(name)")
        var text = try String(contentsOfFile: "\(repository)/pipelines/\(name).yaml", encoding: .utf8)
        if name == "stairs" {
            text = text.replacingOccurrences(of: "../datasets/", with: "\(repository)/datasets/")
        } else {
            _ = try Synth.write(SynthOptions(outDirectory: root + "/data", subjects: 4, minutes: 0.5, seed: 5))
            text = text.replacingOccurrences(of: "../datasets/walk/", with: "data/")
        }
        text = text.replacingOccurrences(of: "path: ../build/\(name)", with: "path: out")
        try text.write(toFile: root + "/p.yaml", atomically: true, encoding: .utf8)
        let status = MotionprepCommand.run(["run", root + "/p.yaml", "--quiet"])
        guard status == .success else { throw MotionError(.ioError, "\(name): `motionprep run` exited \(status.rawValue)") }
        return Array(try Data(contentsOf: URL(fileURLWithPath: root + "/out/manifest.json")))
    }

    @Test(arguments: ["walk", "walk-createml", "uci-har-style", "stairs"])
    func aShippedPipelinesChainRoundTripsByteForByte(name: String) throws {
        let bytes = try Self.runShipped(name)
        let root = JSONNode(try JSONParser.parse(bytes), document: "the manifest")
        let chain = try root["chain"].decode(ProcessingChain.self)
        // The record alone, and the whole manifest through the dataset model.
        #expect(chain.json == root["chain"].value)
        #expect(chain.json.pretty() == root["chain"].value?.pretty())
        let manifest = try DatasetManifest.decode(bytes: bytes, file: "manifest.json")
        #expect(manifest.chain == chain)
        #expect(Array(manifest.text.utf8) == bytes)
        #expect((try? chain.versions.get()) == StageImplementation.versions)
        switch name {
        case "uci-har-style":
            #expect(chain.transforms.map(\.operation.op) == ["median", "filter", "gravity", "derivative", "magnitude"])
            guard case .filter(let sos, true) = chain.transforms[1].operation else { Issue.record("no zero-phase filter"); return }
            #expect(sos.count == 2 && sos.allSatisfy { $0.count == 6 && $0[3] == 1 })
            #expect(chain.antialiasFrom == .leading && chain.magnitudes.isEmpty)
        case "stairs":
            #expect(chain.streams.map(\.name) == ["Accelerometer", "Barometer"])
            #expect(chain.streams.map(\.method) == [.linear, .previous])
            #expect(chain.streams.map(\.maxGapS) == [0.2, 1.5])
            #expect(chain.transforms.isEmpty && chain.magnitudes.isEmpty)
        default:
            #expect(chain.streams.map(\.name) == ["A", "G"])
            #expect(chain.magnitudes == [.init(name: "acc_mag", axes: ["acc_x", "acc_y", "acc_z"])])
            #expect(chain.antialiasFromLeading)
        }
    }

    /// Every kind of step, a stream without a gap limit and a manifest without versions:
    /// encoded, then decoded to the same value and the same text.
    @Test func everyStepKindRoundTrips() throws {
        let chain = ProcessingChain(
            streams: [.init(name: "A", channels: ["ax", "ay", "az"], method: .nearest, maxGapS: nil)],
            magnitudes: [], antialias: true, antialiasFrom: .recording,
            transforms: [.init(operation: .median(samples: 5), inputs: ["ax"], outputs: ["ax"]),
                         .init(operation: .filter(sos: [[0.5, 1, 0.5, 1, -0.25, 0.125]], zeroPhase: false), inputs: ["ay"], outputs: ["ay"]),
                         .init(operation: .gravity(sos: [[1e-3, 2e-3, 1e-3, 1, -1.9, 0.9]], zeroPhase: true),
                               inputs: ["ax"], outputs: ["b", "g"]),
                         .init(operation: .derivative, inputs: ["b"], outputs: ["db"]),
                         .init(operation: .magnitude(groups: [["ax", "ay", "az"]]), inputs: ["ax", "ay", "az"], outputs: ["m"]),
                         .init(operation: .calibrate(scale: [2], offset: [-0.5]), inputs: ["az"], outputs: ["az"])],
            implementation: nil)
        let text = chain.json.pretty()
        let back = try JSONNode(try JSONParser.parse(text: text), path: "chain").decode(ProcessingChain.self)
        #expect(back == chain)
        #expect(back.json.pretty() == text)
        #expect(text.contains("\"max_gap_s\": null") && !text.contains("implementation"))
        #expect((try? back.versions.get()) == StageImplementation.beforeVersions)
    }

    /// A forged field of the wrong type: one sentence naming the file and the key path, from the
    /// dataset model (`validate`, `apply`, `inspect`) as from the live library's reader.
    @Test func aWrongTypedChainFieldNamesItsKeyPath() throws {
        let original = JSONNode(try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Fixture.dataset + "/manifest.json")))))
        func problem(_ path: [Any], _ value: JSONValue?) -> String? {
            var m = original.value!
            if let value { m[["chain"] + path] = value } else { m.remove(path.last as! String, at: ["chain"] + path.dropLast()) }
            do {
                _ = try DatasetManifest.decode(bytes: Array(m.pretty().utf8), file: "out/manifest.json")
                return nil
            } catch {
                return (error as? MotionError)?.message
            }
        }
        #expect(problem(["streams", 0, "max_gap_s"], .string("0.2"))
                == "out/manifest.json: `chain.streams[0].max_gap_s` must be a number, not \"0.2\"")
        #expect(problem(["streams", 1, "method"], .string("cubic"))
                == "out/manifest.json: `chain.streams[1].method` is \"cubic\"; the methods are linear, nearest and previous")
        #expect(problem(["streams", 0, "channels", 1], .int(3))
                == "out/manifest.json: `chain.streams[0].channels[1]` must be a string, not `3`")
        #expect(problem(["antialias"], .string("yes")) == "out/manifest.json: `chain.antialias` must be true or false, not \"yes\"")
        #expect(problem(["transforms"], .object([:])) == "out/manifest.json: `chain.transforms` must be a list, not an object")
        #expect(problem(["transforms"], .array([.object(["op": .string("median"), "inputs": .array([]), "outputs": .array([]),
                                                          "samples": .double(2.5)])]))
                == "out/manifest.json: `chain.transforms[0].samples` must be a whole number ≥ 1, not `2.5`")
        #expect(problem(["transforms"], .array([.object(["op": .string("filter"), "inputs": .array([]), "outputs": .array([]),
                                                          "zero_phase": .bool(true), "sos": .array([.array([.int(1), .int(2)])])])]))
                == "out/manifest.json: `chain.transforms[0].sos[0]` must have 6 coefficients")
        #expect(problem(["transforms"], .array([.object(["op": .string("fft"), "inputs": .array([]), "outputs": .array([])])]))
                == "out/manifest.json: `chain.transforms[0].op` is \"fft\"; this version knows median, filter, gravity, derivative, magnitude and calibrate")
        #expect(problem(["magnitudes"], nil) == "out/manifest.json: missing key `magnitudes` in `chain`")
        #expect(problem(["antialias_frm"], .string("leading"))
                == "out/manifest.json: unknown key `antialias_frm` in `chain`; did you mean `antialias_from`?")
        // A malformed `implementation` is rule C3's (docs/validate.md), not the schema's: it decodes.
        #expect(problem(["implementation"], .array([])) == nil)
    }
}
