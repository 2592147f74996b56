#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionConfig
import MotionCore
import MotionDataset
import MotionSinks

import MotionChecksum
import MotionOutput
import MotionInputs
import MotionRecords
import MotionEngine
import MotionInspect

/// `DIR.partial/state.json`: what an interrupted run was doing, for `--resume`.
struct RunState {
    static let fileName = OutputNames.runState
    var pipelineSHA256: String
    var worker: String?
    /// The run-wide inputs read before any recording (labels file, plan-time layout files);
    /// nil in the state of an older motionprep.
    var inputs: [InputEntry]?

    /// `state.json`'s text (written through the staging folder's descriptor).
    var text: String {
        JSONValue.object(["pipeline_sha256": .string(pipelineSHA256), "worker": worker.map { .string($0) } ?? .null,
                          "inputs": .array((inputs ?? []).map(\.json))]).pretty() + "\n"
    }

    static func load(path: String) throws -> RunState {
        guard let data = try RegularFile.contents(atPath: path) else {
            throw MotionError(.dataError, "cannot resume: \(path) is not readable resume state; run without `--resume` to start over")
        }
        do {
            return try JSONFile.decode(RunState.self, from: Array(data), file: path, document: "the resume state")
        } catch {
            throw MotionError(.dataError, "cannot resume: \(error.message); run without `--resume` to start over")
        }
    }
}

extension RunState: JSONDecodable {
    init(json o: JSONNode) throws(JSONProblem) {
        pipelineSHA256 = try o["pipeline_sha256"].string()
        worker = try o["worker"].optional { n throws(JSONProblem) in try n.string() }
        // Absent in the state of an older motionprep.
        inputs = try o["inputs"].optional { n throws(JSONProblem) in
            var out: [InputEntry] = []
            for item in try n.items() { out.append(try item.decode()) }
            return out
        }
    }
}
