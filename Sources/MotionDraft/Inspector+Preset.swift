import MotionConfig
import MotionCore
import MotionInputs
import MotionInspect

/// A phone app's export file as its preset reads it: what `inspect FILE` prints for it and what
/// `init` reports per file (docs/commands.md, "inspect"). Both recognise the file with the same
/// function (``Inspector/presetMatch(file:head:)``, the one `init` sorts files with), and both read
/// it through a one-input pipeline holding the preset entry that `init` would write, so the
/// samples, rate, channels and units shown are those `run` will read — not a generic csv guess.
public struct PresetFileReport: Sendable {
    /// The app, the sensors the file holds, the delimiter.
    public var match: PhonePreset.Match
    /// The pipeline input that reads the file (the entry's `paths` relative to the file's
    /// folder for AndroSensor, to its export folder's parent for Sensor Logger and phyphox).
    public var inputYAML: String
    /// The recording as the preset reads it (only this file's sensors for the folder apps).
    public var recording: RecordingReport
}

extension Inspector {
    /// The phone-app preset a file looks like, from its first bytes (its header line: the first
    /// line, or the one after Excel's `sep=` line) and its name; nil for any other file.
    public static func presetMatch(file path: String, head: [UInt8]) -> PhonePreset.Match? {
        PipelineDraft.presetMatch(path, head: head)
    }

    /// `path` read as its preset reads it. `match` is ``presetMatch(file:head:)``'s answer.
    public static func inspect(presetFile path: String, match: PhonePreset.Match,
                               blockBytes: Int = StreamDefaults.blockBytes) throws -> PresetFileReport {
        try inspect(presetFile: path, match: match, streamBytes: 0, blockBytes: blockBytes)
    }

    /// With `streamBytes`, files under that size are read whole (`init`'s small files).
    package static func inspect(presetFile path: String, match: PhonePreset.Match, streamBytes: Int,
                        blockBytes: Int) throws -> PresetFileReport {
        // What the entry's paths name: the export folder (Sensor Logger, phyphox) or the file.
        let target = match.app.readsFolders ? PipelineDraft.parentDirectory(path) : path
        let base = PipelineDraft.parentDirectory(target)
        let name = String(target.split(separator: "/").last ?? Substring(target))
        var entry = ["  - type: \(match.app.rawValue)",
                     "    paths: [\(YAMLText.doubleQuoted(Glob.escape(name)))]",
                     "    sensors: [\(match.sensors.map(YAMLText.quoted).joined(separator: ", "))]"]
        entry += PipelineDraft.presetOptionLines(match)
        let yaml = (["version: 1", "name: inspect", "inputs:"] + entry
                    + ["resample: {rate_hz: 50}", "window: {length_samples: 2, stride_samples: 1}", "output: {path: unused}"])
            .joined(separator: "\n") + "\n"
        let spec = try PipelineLoader.load(yaml: yaml, file: path, baseDirectory: base.isEmpty ? "." : base)
        let reports = try inspect(pipeline: spec, streamBytes: streamBytes, blockBytes: blockBytes)
        guard var recording = reports.first else {
            throw MotionError(.noInput, "\(path): the `\(match.app.rawValue)` preset found no recording to read here")
        }
        recording.format = "\(match.app.title) export (`type: \(match.app.rawValue)`)"
        return PresetFileReport(match: match, inputYAML: entry.joined(separator: "\n") + "\n", recording: recording)
    }
}
