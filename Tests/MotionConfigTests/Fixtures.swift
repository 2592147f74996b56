@testable import MotionConfig

/// A small valid pipeline; error cases edit it. Lines:
/// 1 version, 2 inputs, 3 `- type`, 4 paths, 5 resample, 6 rate_hz, 7 window, 8 length_s,
/// 9 output, 10 path.
let minimalPipeline = """
version: 1
inputs:
  - type: motioncollector
    paths: ["data/*.csv"]
resample:
  rate_hz: 50
window:
  length_s: 2.56
output:
  path: out

"""

/// `minimalPipeline` with `old` replaced by `new` (which must occur).
func edited(_ old: String, _ new: String, in text: String = minimalPipeline) -> String {
    precondition(text.contains(old), "fixture does not contain \(old)")
    return text.replacing(old, with: new)
}

/// The messages a pipeline text produces (empty when it loads).
func messages(_ yaml: String, file: String = "walk.yaml") -> [String] {
    do {
        _ = try PipelineLoader.load(yaml: yaml, file: file, baseDirectory: ".")
        return []
    } catch let error as PipelineFileError {
        return error.issues.map(\.message)
    } catch {
        return ["unexpected error: \(error)"]
    }
}

func load(_ yaml: String, file: String = "walk.yaml") throws -> PipelineSpec {
    try PipelineLoader.load(yaml: yaml, file: file, baseDirectory: ".")
}

import MotionCore

enum SourceLocationFixture {
    static func file(_ f: String, _ line: Int? = nil, _ column: Int? = nil) -> SourceLocation {
        SourceLocation(file: f, line: line, column: column)
    }
}
