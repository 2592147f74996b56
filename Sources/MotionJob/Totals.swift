import Foundation
import MotionChecksum
import MotionConfig
import MotionCore
import MotionDataset
import MotionSinks
import MotionOutput
import MotionInputs
import MotionRecords

/// Counters summed over recordings in canonical order.
struct Totals {
    var rowsRead = 0
    var rowsDropped: [String: Int] = [:]
    var windowsDropped: [String: Int] = [:]
    var recordingsDropped: [String: Int] = [:]
    var skipped: [(String, String)] = []
    var gaps = 0
    var invalidPoints = 0
    var shortRecordings = 0
    /// Per recording appended (canonical order), its longest gap-free stretch in grid points
    /// (nil when unknown: resumed from a record file).
    var longestRuns: [(recording: String, points: Int?)] = []
    /// Lines of the intervals file that cover no grid point of their recording, ascending.
    var labelRowsNoOverlap: [Int] = []
    /// The pipeline's `qa`: each recording's report, in the order appended (canonical).
    var qaReports: [JSONValue] = []
    var xMoments: RunningMoments
    var featureMoments: RunningMoments

    init(channels: Int, features: Int) {
        xMoments = RunningMoments(columns: channels)
        featureMoments = RunningMoments(columns: features)
    }

    /// Adds another partition's counters (`output.partitioned`), in partition order; the
    /// caller sorts `skipped` and `labelRowsNoOverlap` into canonical order afterwards.
    mutating func merge(_ o: Totals) {
        rowsRead += o.rowsRead
        rowsDropped.add(o.rowsDropped)
        windowsDropped.add(o.windowsDropped)
        recordingsDropped.add(o.recordingsDropped)
        skipped += o.skipped
        gaps += o.gaps
        invalidPoints += o.invalidPoints
        shortRecordings += o.shortRecordings
        longestRuns += o.longestRuns
        labelRowsNoOverlap += o.labelRowsNoOverlap
        qaReports += o.qaReports
        xMoments.combine(o.xMoments)
        featureMoments.combine(o.featureMoments)
    }

    mutating func add(_ r: ProcessedRecording) {
        rowsRead += r.rowsRead
        rowsDropped.add(r.rowsDropped)
        windowsDropped.add(r.windowsDropped)
        if let d = r.recordingDropped { recordingsDropped[d, default: 0] += 1 }
        gaps += r.gaps
        invalidPoints += r.invalidPoints
        longestRuns.append((r.source.name, r.longestRun))
        labelRowsNoOverlap += r.labelRowsNoOverlap
        if let qa = r.qa { qaReports.append(qa) }
        if let m = r.xMoments { xMoments.combine(m) }
        if let m = r.featureMoments { featureMoments.combine(m) }
    }

    /// Why no window came out: the window's length, the recordings' longest gap-free stretches
    /// (all of them up to `maxListed`, else the longest `maxListed` and how many there are), and
    /// what was dropped.
    func explanation(windowLength: Int, rateHz: Double, recordings: Int) -> String {
        let window = "one window is \(windowLength) samples (\(Double(windowLength) / rateHz) s at \(MessageNumber.number(rateHz)) Hz)"
        var parts: [String] = []
        if windowsDropped.isEmpty {
            parts.append("\(window), longer than every recording's longest gap-free stretch")
        } else {
            parts.append("\(window); every window cut was dropped")
        }
        func stretch(_ r: (recording: String, points: Int?)) -> String {
            guard let n = r.points else { return "`\(r.recording)` not known (resumed)" }
            return "`\(r.recording)` \(Double(n) / rateHz) s (\(n) samples)"
        }
        let known = longestRuns.filter { $0.points != nil }
        if !longestRuns.isEmpty {
            if longestRuns.count <= Self.maxListed {
                parts.append("longest gap-free stretch per recording: " + longestRuns.map(stretch).joined(separator: ", "))
            } else {
                // Stable: equal lengths stay in canonical order.
                let longest = known.enumerated().sorted { a, b in
                    a.element.points! != b.element.points! ? a.element.points! > b.element.points! : a.offset < b.offset
                }.prefix(Self.maxListed).map(\.element)
                parts.append("the \(longest.count) longest gap-free stretches of \(longestRuns.count) recordings: "
                             + longest.map(stretch).joined(separator: ", "))
            }
        }
        var counts: [String] = ["\(recordings) recording(s) read"]
        for (k, v) in recordingsDropped.sorted(by: { $0.key < $1.key }) { counts.append("\(v) recording(s) dropped (\(k))") }
        for (k, v) in windowsDropped.sorted(by: { $0.key < $1.key }) { counts.append("\(v) window(s) dropped (\(k))") }
        parts.append(counts.joined(separator: ", "))
        return parts.joined(separator: "; ")
    }

    /// Recordings listed one by one in the explanation; more are summarised by the longest.
    static let maxListed = 5
}
