import MotionConfig
import MotionCore
import MotionSinks
import MotionFeatures
import MotionIngest
import MotionLabels
import MotionResample
import MotionWindowing
import MotionInputs

/// What one recording produced: its windows and what was counted on the way.
public struct ProcessedRecording: Sendable {
    public var source: RecordingSource
    public var windows: WindowBatch
    public var rowsRead: Int
    public var rowsDropped: ReasonCounts
    public var windowsDropped: ReasonCounts
    /// `too_few_samples` when the recording yields no grid.
    public var recordingDropped: String?
    public var gaps: Int
    public var invalidPoints: Int
    public var warnings: [String]
    /// Moments of x's channels over every time step of every window (train recordings only).
    public var xMoments: RunningMoments?
    public var featureMoments: RunningMoments?
    /// The longest run of valid grid points (gap-free stretch), for the message of a run without
    /// windows; nil when not known (a recording resumed from a record file).
    public var longestRun: Int? = nil
    /// Lines of the intervals file whose row (of this recording, label in `classes`) covers no
    /// grid point of it (`counts.label_rows_ignored.no_overlap`).
    public var labelRowsNoOverlap: [Int] = []
    /// `output.type: createml`: the recording's labelled stretches of rows (held in memory, not
    /// in the record file).
    public var createml: RowStretches? = nil
    /// With `RecordingProcessor.collectRows`: every valid row of `x` the chain settled, with its
    /// time (`motionprep live-vectors`' expected rows).
    public var rows: RecordingRows? = nil
    /// With the pipeline's `qa`: the recording's quality report (calibration, non-wear), the
    /// manifest's `qa.recordings` entry (docs/dataset-format.md, "Device quality").
    public var qa: JSONValue? = nil

    package init(source: RecordingSource, windows: WindowBatch, rowsRead: Int, rowsDropped: ReasonCounts, windowsDropped: ReasonCounts, recordingDropped: String? = nil, gaps: Int, invalidPoints: Int, warnings: [String], xMoments: RunningMoments? = nil, featureMoments: RunningMoments? = nil, longestRun: Int? = nil, labelRowsNoOverlap: [Int] = [], createml: RowStretches? = nil, rows: RecordingRows? = nil, qa: JSONValue? = nil) {
        self.source = source
        self.windows = windows
        self.rowsRead = rowsRead
        self.rowsDropped = rowsDropped
        self.windowsDropped = windowsDropped
        self.recordingDropped = recordingDropped
        self.gaps = gaps
        self.invalidPoints = invalidPoints
        self.warnings = warnings
        self.xMoments = xMoments
        self.featureMoments = featureMoments
        self.longestRun = longestRun
        self.labelRowsNoOverlap = labelRowsNoOverlap
        self.createml = createml
        self.rows = rows
        self.qa = qa
    }
}

/// A recording's valid rows of `x` (the grid after every transform), row-major, with their times.
public struct RecordingRows: Sendable, Equatable {
    public var times: [Double] = []
    public var values: [Float] = []

    package init(times: [Double] = [], values: [Float] = []) {
        self.times = times
        self.values = values
    }
}
