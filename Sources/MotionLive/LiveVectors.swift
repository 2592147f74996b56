import MotionCore

/// Test vectors written by `motionprep live-vectors` (docs/live.md, "Test vectors"): a dataset
/// recording's samples as an app would push them, and the windows the dataset's engine made of
/// them. An app's unit test replays them through its `LiveProcessor` on the device, where the
/// compiler, the CPU and the library version are the app's, and checks the windows bit for bit.
public struct LiveVectors: Sendable {
    /// The pipeline the vectors were made with: it must be the configuration's.
    public var pipelineSHA256: String
    public var recording: String
    /// The recording's median sampling intervals, for a dataset whose anti-aliasing filter is
    /// designed from them (`antialias_from: recording`); empty otherwise.
    public var sampleIntervals: [String: Double]
    /// The samples, in arrival order: stream name, time, values.
    public var samples: [(stream: String, time: Double, values: [Double])]
    /// The windows: start time and `x`.
    public var windows: [(startTime: Double, x: [Float])]
    /// The rows the windows are cut from (`LiveProcessor.emitsRows`): time and the row of `x`;
    /// empty in vectors written before they carried rows.
    public var rows: [(time: Double, values: [Float])] = []

    /// What `check` found.
    public struct Result: Sendable, Equatable {
        public var windowsExpected: Int
        public var windowsGot: Int
        /// Windows equal in start time and every bit of `x`.
        public var windowsEqual: Int
        /// The rows, likewise (0 expected in vectors without rows).
        public var rowsExpected = 0
        public var rowsGot = 0
        public var rowsEqual = 0
        /// The first difference, in one sentence; nil when every window is equal.
        public var firstDifference: String?
        public var passed: Bool { firstDifference == nil }
    }

    public init(contentsOf path: String) throws(LiveError) {
        guard let bytes = LiveFile.read(path) else { throw LiveError("cannot read the test vectors \(path)") }
        try self.init(bytes: bytes, name: path)
    }

    public init(bytes: [UInt8], name: String = "vectors.json") throws(LiveError) {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch {
            throw LiveError("\(name):\(error.line):\(error.column): \(error.problem) (the test vectors are not valid JSON)")
        }
        func bad(_ what: String) -> LiveError {
            LiveError("\(name): \(what); it is not a test vectors file written by `motionprep live-vectors` (format motionprep.live-vectors, version 1)")
        }
        guard case .object(let o) = root, case .string("motionprep.live-vectors")? = o["format"] else { throw bad("no `format: motionprep.live-vectors`") }
        guard case .int(1)? = o["format_version"] else { throw bad("`format_version` is not 1") }
        guard case .string(let sha)? = o["pipeline_sha256"], case .string(let rec)? = o["recording"],
              case .object(let iv)? = o["sample_intervals"], case .array(let ss)? = o["samples"],
              case .array(let ws)? = o["windows"] else { throw bad("a key is missing or of the wrong type") }
        pipelineSHA256 = sha
        recording = rec
        var intervals: [String: Double] = [:]
        for (k, v) in iv {
            guard case .string(let h) = v, let d = Self.double(h) else { throw bad("`sample_intervals.\(k)` is not 16 hex digits") }
            intervals[k] = d
        }
        sampleIntervals = intervals
        var samples: [(stream: String, time: Double, values: [Double])] = []
        samples.reserveCapacity(ss.count)
        for (i, s) in ss.enumerated() {
            guard case .array(let f) = s, f.count >= 2, case .string(let stream) = f[0], case .string(let th) = f[1],
                  let t = Self.double(th) else { throw bad("`samples[\(i)]` is not [stream, time, values…]") }
            var values: [Double] = []
            for v in f.dropFirst(2) {
                guard case .string(let h) = v, let d = Self.double(h) else { throw bad("a value of `samples[\(i)]` is not 16 hex digits") }
                values.append(d)
            }
            samples.append((stream, t, values))
        }
        self.samples = samples
        var windows: [(startTime: Double, x: [Float])] = []
        for (i, w) in ws.enumerated() {
            guard case .object(let wo) = w, case .string(let th)? = wo["start_time"], let t = Self.double(th),
                  case .string(let xh)? = wo["x"], let x = Self.floats(xh) else { throw bad("`windows[\(i)]` is not {start_time, x}") }
            windows.append((t, x))
        }
        self.windows = windows
        if let r = o["rows"] {
            guard case .array(let rs) = r else { throw bad("`rows` is not a list") }
            for (i, row) in rs.enumerated() {
                guard case .array(let f) = row, f.count == 2, case .string(let th) = f[0], let t = Self.double(th),
                      case .string(let vh) = f[1], let v = Self.floats(vh) else { throw bad("`rows[\(i)]` is not [time, x]") }
                rows.append((t, v))
            }
        }
    }

    /// Replays the samples through a new processor of `configuration` and compares its windows
    /// with the dataset's.
    public func check(_ configuration: LiveConfiguration) throws(LiveError) -> Result {
        guard configuration.pipelineSHA256 == pipelineSHA256 else {
            throw LiveError("the test vectors were made with pipeline \(pipelineSHA256.prefix(12))…, and this configuration's is \(configuration.pipelineSHA256.prefix(12))…; make them again from this dataset")
        }
        let live = try LiveProcessor(configuration: configuration,
                                     sampleIntervals: configuration.antialias && !configuration.antialiasFromLeading ? sampleIntervals : [:])
        live.emitsRows = !rows.isEmpty
        var got: [LiveWindow] = [], gotRows: [LiveRow] = []
        for s in samples {
            got += try live.push(s.stream, time: s.time, values: s.values)
            if live.emitsRows { gotRows += live.takeRows() }
        }
        got += live.finish()
        if live.emitsRows { gotRows += live.takeRows() }
        let w = Self.compare("window", "starts at", " of x", got: got.map { ($0.startTime, $0.x) },
                           expected: windows.map { ($0.startTime, $0.x) })
        let r = Self.compare("row", "is at", "", got: gotRows.map { ($0.time, $0.values) }, expected: rows)
        var result = Result(windowsExpected: windows.count, windowsGot: got.count, windowsEqual: w.equal,
                            firstDifference: w.difference ?? r.difference)
        result.rowsExpected = rows.count
        result.rowsGot = gotRows.count
        result.rowsEqual = r.equal
        return result
    }

    /// Windows or rows, one by one (the time's bits, then the first value whose bits differ),
    /// then their counts: how many are equal, and the first difference in words.
    static func compare(_ noun: String, _ at: String, _ of: String, got: [(time: Double, values: [Float])],
                        expected: [(time: Double, values: [Float])]) -> (equal: Int, difference: String?) {
        var equal = 0
        var difference: String?
        for (i, e) in expected.prefix(got.count).enumerated() {
            let g = got[i]
            if g.time.bitPattern != e.time.bitPattern {
                difference = difference ?? "\(noun) \(i) \(at) \(g.time) s, the dataset's at \(e.time) s"
            } else if let k = firstDifference(g.values, e.values) {
                difference = difference ?? "\(noun) \(i) (at \(e.time) s): value \(k)\(of) is \(k < g.values.count ? "\(g.values[k])" : "missing"), the dataset's \(k < e.values.count ? "\(e.values[k])" : "missing")"
            } else {
                equal += 1
            }
        }
        if difference == nil && got.count != expected.count {
            difference = "the processor gave \(got.count) \(noun)s, the dataset \(expected.count)"
        }
        return (equal, difference)
    }

    /// The first index where the bits differ, or the shorter count when one is a prefix of the other.
    static func firstDifference(_ a: [Float], _ b: [Float]) -> Int? {
        for k in 0..<min(a.count, b.count) where a[k].bitPattern != b[k].bitPattern { return k }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    static func double(_ hex: String) -> Double? {
        guard hex.utf8.count == 16, let bits = UInt64(hex, radix: 16) else { return nil }
        return Double(bitPattern: bits)
    }

    static func floats(_ hex: String) -> [Float]? {
        let u = Array(hex.utf8)
        guard u.count % 8 == 0 else { return nil }
        var out: [Float] = []
        out.reserveCapacity(u.count / 8)
        var i = 0
        while i < u.count {
            var bits: UInt32 = 0
            for c in u[i..<(i + 8)] {
                let d: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                default: return nil
                }
                bits = bits << 4 | d
            }
            out.append(Float(bitPattern: bits))
            i += 8
        }
        return out
    }
}
