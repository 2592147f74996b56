import MotionCore

/// The pipeline's `transforms` resolved against its channels (docs/signal.md, "Transforms"): each
/// step's input channels as indices into `x`, the channels it appends, and its filter designed.
///
/// What the steps read: the resampled grid values as stored (float32, after the top-level
/// `magnitude`) widened to float64, one gap-free segment at a time; every step works in float64
/// on contiguous per-channel buffers, and only the final values of `x` are rounded to float32.
public struct TransformPlan: Sendable, Equatable {
    public enum Operation: Sendable, Equatable {
        case median(samples: Int)
        case filter(sos: SignalFilters.SOS, zeroPhase: Bool)
        /// `outputs` are the body channels, then the gravity channels.
        case gravity(sos: SignalFilters.SOS, zeroPhase: Bool)
        case derivative
        /// One output per group of `inputs`.
        case magnitude(groups: [[Int]])
        /// Per input channel.
        case calibrate(scale: [Double], offset: [Double])
    }

    public struct Step: Sendable, Equatable {
        public var operation: Operation
        /// Channels of `x` read, in the order the references list them.
        public var inputs: [Int]
        /// Channels of `x` written: the inputs for in-place steps, else the appended channels.
        public var outputs: [Int]
        /// The shortest segment the step can work on: longer than the padding of a zero-phase filter, else 1.
        public var minimumSegment: Int

        public init(operation: Operation, inputs: [Int], outputs: [Int], minimumSegment: Int) {
            self.operation = operation
            self.inputs = inputs
            self.outputs = outputs
            self.minimumSegment = minimumSegment
        }
    }

    public var steps: [Step]
    /// The channels of `x` before the transforms (sensor channels, then `magnitude`'s).
    public var inputChannels: Int
    /// The channels the steps append, in order, and their units.
    public var names: [String]
    public var units: [String]

    /// All channels of `x`.
    public var channelCount: Int { inputChannels + names.count }
    /// The shortest gap-free segment every step can work on; shorter ones are dropped.
    public var minimumSegment: Int { steps.map(\.minimumSegment).max() ?? 1 }

    public init(steps: [Step], inputChannels: Int, names: [String], units: [String]) {
        self.steps = steps
        self.inputChannels = inputChannels
        self.names = names
        self.units = units
    }


    // MARK: - Applying

    /// One gap-free segment of `count` grid rows of ``inputChannels`` channels with every step
    /// applied: `count` rows of ``channelCount`` channels (what ``apply(_:rateHz:)`` gives for
    /// that segment). The segment must have at least ``minimumSegment`` rows.
    public func applySegment(_ rows: UnsafeBufferPointer<Float>, count: Int, rateHz: Double) -> [Float] {
        let C0 = inputChannels, C = channelCount
        precondition(rows.count == count * C0 && count >= minimumSegment, "TransformPlan.applySegment: \(rows.count) values for \(count) rows of \(C0) channels (at least \(minimumSegment) rows)")
        var out = [Float](repeating: 0, count: count * C)
        out.withUnsafeMutableBufferPointer { transform(rows, count: count, rateHz: rateHz, into: $0) }
        return out
    }

    /// Runs the steps on one segment (`SegmentTransformer` with every row at once): `src` holds
    /// its `n` rows of ``inputChannels`` channels, `dst` receives its `n` rows of ``channelCount``.
    private func transform(_ src: UnsafeBufferPointer<Float>, count n: Int, rateHz: Double, into dst: UnsafeMutableBufferPointer<Float>) {
        let t = SegmentTransformer(plan: self, rateHz: rateHz)
        t.append(rows: src, count: n)
        t.end()
        let ready = t.advance()
        precondition(ready == n, "TransformPlan: \(ready) of \(n) rows transformed at the segment's end")
        t.rows(0..<n, into: dst)
    }
}
