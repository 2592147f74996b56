import MotionConfig
import MotionCore
import MotionIngest
import MotionLabels
import MotionInputs

/// Where a streamed recording's labels come from, and where the label events its files give
/// go (`StreamingRecording.take`): one case per source, instead of flags.
package enum RecordingLabels {
    /// No `labels` stage.
    case none
    /// The `intervals` or `path` track, on the input's clock once T0 is known (`clock: recording`).
    case fixed(LabelTrack)
    /// The track of the label rows (or markers), read in a pass of their own before the
    /// recording is streamed (`StreamingRecording.attempt`, when they are far out of time order).
    case readFirst(LabelTrack)
    /// The label rows (or markers), kept in time order as they come, for the windows.
    case events(LabelFold)
    /// `timeline`: the label rows (or markers) folded into a track as they come.
    case timeline(TimelineEvents)

    /// The labels of `source` for `spec`: its fixed track, the track read first, or its events.
    package static func of(_ source: RecordingSource, spec: PipelineSpec, intervals: IntervalLabels?,
                           readFirst track: LabelTrack?) throws -> RecordingLabels {
        if let fixed = try LabelSources.fixedTrack(source, spec: spec, intervals: intervals) { return .fixed(fixed) }
        if let track { return .readFirst(track) }
        return spec.labels == nil ? .none : .events(LabelFold())
    }

    /// The track the windows are labelled from (empty while the events are folded for a timeline).
    package var track: LabelTrack {
        switch self {
        case .fixed(let t), .readFirst(let t): t
        case .events(let fold): fold.track
        case .none, .timeline: LabelTrack(names: [], times: [], labels: [])
        }
    }
}

/// A recording's label events kept in time order as its blocks give them, for labelling windows
/// one input block behind the samples (`StreamingRecording.label`). An event at or before a
/// time already labelled would have changed a finished window (`LabelEventOutOfOrder`).
package final class LabelFold {
    package private(set) var names: [String] = []
    package private(set) var times: [Double] = []
    package private(set) var labels: [Int32] = []
    /// Windows through this time are labelled.
    package var labelledThrough: Double = -.infinity
    /// Events after this time are never used (the grid cannot reach them: `limitGrid`).
    package var bound: Double = .infinity

    package init() {}

    package var track: LabelTrack { LabelTrack(names: names, times: times, labels: labels) }

    /// Adds label events in time order (stable: an equal time goes after the ones already there).
    package func add(_ e: LabelEvents) throws {
        // The block's label ids mapped to the recording's once each (names get ids in the order
        // they first occur, as before); the event lists are held in locals for the loop.
        var map = LabelIDMap(from: e.names)
        var times = self.times, labels = self.labels, names = self.names
        self.times = []
        self.labels = []
        self.names = []
        defer {
            self.times = times
            self.labels = labels
            self.names = names
        }
        let bound = self.bound, through = labelledThrough
        for (t, l) in zip(e.times, e.labels) where t <= bound {
            if t <= through {
                throw LabelEventOutOfOrder(time: t, labelledThrough: through)
            }
            let id = map.id(l, in: &names)
            if let last = times.last, t < last {
                var i = times.count
                while i > 0 && times[i - 1] > t { i -= 1 }
                times.insert(t, at: i)
                labels.insert(id, at: i)
            } else {
                times.append(t)
                labels.append(id)
            }
        }
    }

    /// Drops events before `horizon`, the earliest time a window can still cover, except the
    /// last of them (the label in force there), in steps of at least 1024.
    package func trim(before horizon: Double) {
        var n = 0
        while n + 1 < times.count && times[n + 1] <= horizon { n += 1 }
        if n >= 1024 {
            times.removeFirst(n)
            labels.removeFirst(n)
        }
    }
}

/// `StreamingRecording.timeline`'s label events, folded into a track as they come
/// (`StreamedInspection.EventFold`, the inspector's fold).
package final class TimelineEvents {
    package var fold: StreamedInspection.EventFold

    package init(sources: Int) { fold = StreamedInspection.EventFold(sources: sources) }
}
