import MotionCore
import MotionFeatures
import MotionInputs
import MotionRecords

/// The windows a streamed recording keeps, a block of `RecordStore.blockWindows` at a time: their
/// features, the training split's normalisation moments combined per block, and the block into
/// the record file (`RecordWriter`; none for a timeline).
package final class WindowOutput {
    package let featurePlan: FeaturePlan?
    package let extractor: FeatureExtractor?
    /// The training split's recordings give the normalisation moments.
    package let isTrain: Bool
    /// Where full blocks go: `run`'s record file; nil for a timeline, which cuts no windows.
    package var writer: RecordWriter?
    /// The block being filled.
    package var batch: WindowBatch
    package private(set) var xMoments: RunningMoments?
    package private(set) var featureMoments: RunningMoments?

    package init(length: Int, channels: Int, featurePlan: FeaturePlan?, extractor: FeatureExtractor?, isTrain: Bool,
                 writer: RecordWriter?) {
        self.featurePlan = featurePlan
        self.extractor = extractor
        self.isTrain = isTrain
        self.writer = writer
        batch = WindowBatch(length: length, channelCount: channels, featureCount: featurePlan?.count ?? 0)
    }

    /// Features and moments of the block, then the block into the record file.
    package func flush() throws {
        guard batch.count > 0 else { return }
        let T = batch.length, C = batch.channelCount
        if let featurePlan, let extractor {
            batch.features = [Float](repeating: 0, count: batch.count * featurePlan.count)
            let n = batch.count
            batch.x.withUnsafeBufferPointer { x in
                batch.features.withUnsafeMutableBufferPointer { f in extractor.extract(windows: x, count: n, into: f) }
            }
        }
        if isTrain {
            var m = xMoments ?? RunningMoments(columns: C)
            m.combine(RunningMoments.of(batch.x, columns: C))
            xMoments = m
            if featurePlan != nil {
                var f = featureMoments ?? RunningMoments(columns: batch.featureCount)
                f.combine(RunningMoments.of(batch.features, columns: batch.featureCount))
                featureMoments = f
            }
        }
        try writer?.append(batch)
        batch = WindowBatch(length: T, channelCount: C, featureCount: featurePlan?.count ?? 0)
    }
}

/// What a streamed recording counts as it is read: rows read and dropped, windows dropped, and
/// the readers' and filters' warnings.
package struct RecordingCounts {
    package var rowsRead = 0
    package var rowsDropped: ReasonCounts = [:]
    package var windowsDropped: ReasonCounts = [:]
    package var warnings: [String] = []
}

/// Where a kept stream of the layout came from: its file (an index into the recording's files)
/// and its name as read (a `{stem}` layout stream is named by its file).
package struct StreamOrigin {
    package var file: Int?
    package var input: InputFile?
    package var name: String
}

/// A streamed recording's memory reservation, in values (`MemoryBudget`): its starting
/// estimate plus what may grow while it runs, each part set to its latest size.
package final class _Reservation {
    package let base: Int
    private let reserve: (Int) throws -> Void
    package private(set) var chain = 0
    package private(set) var rows = 0

    package init(base: Int, reserve: @escaping (Int) throws -> Void) {
        self.base = base
        self.reserve = reserve
    }

    /// The chain holds a zero-phase segment of `values`.
    package func set(chain values: Int) throws {
        chain = values
        try reserve(base + chain + rows)
    }

    /// Collected rows take `values`.
    package func set(rows values: Int) throws {
        rows = values
        try reserve(base + chain + rows)
    }
}
