import MotionCore

/// Test vectors written by `motionprep live-vectors` (docs/live.md, "Test vectors"): a dataset
/// recording's samples as an app would push them, and the windows the dataset's engine made of
/// them. An app's unit test replays them through its `LiveProcessor` on the device, where the
/// compiler, the CPU and the library version are the app's, and checks the windows bit for bit.
public struct LiveVectors: Sendable, JSONDecodable {
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
        do { self = try JSONNode(root, document: "the test vectors").decode() } catch {
            throw LiveError("\(error.message(file: name)); it is not a test vectors file written by `motionprep live-vectors` (format motionprep.live-vectors, version 1)")
        }
    }

    /// Decodes the file's form through MotionCore's `JSONNode`: every problem names its key path
    /// (`samples[3][1]`). Numbers are the hex digits of their bits, so that no JSON reader rounds them.
    public init(json o: JSONNode) throws(JSONProblem) {
        guard try o["format"].string() == "motionprep.live-vectors" else { throw o["format"].problem("must be \"motionprep.live-vectors\"") }
        guard try o["format_version"].int() == 1 else { throw o["format_version"].problem("must be 1") }
        func double(_ n: JSONNode) throws(JSONProblem) -> Double {
            guard let d = Self.double(try n.string()) else { throw n.problem("must be 16 hex digits (a float64's bits), not \(JSONNode.shown(n.value))") }
            return d
        }
        func floats(_ n: JSONNode) throws(JSONProblem) -> [Float] {
            guard let x = Self.floats(try n.string()) else { throw n.problem("must be 8 lowercase hex digits per float32") }
            return x
        }
        pipelineSHA256 = try o["pipeline_sha256"].string()
        recording = try o["recording"].string()
        sampleIntervals = [:]
        for (k, n) in try o["sample_intervals"].members() { sampleIntervals[k] = try double(n) }
        let list = try o["samples"].items()
        samples = []
        samples.reserveCapacity(list.count)
        for s in list {
            let f = try s.items()
            guard f.count >= 2 else { throw s.problem("must be [stream, time, values…]") }
            var values: [Double] = []
            for v in f.dropFirst(2) { values.append(try double(v)) }
            samples.append((try f[0].string(), try double(f[1]), values))
        }
        windows = []
        for w in try o["windows"].items() { windows.append((try double(w["start_time"]), try floats(w["x"]))) }
        if !o["rows"].isMissing {
            for r in try o["rows"].items() {
                let f = try r.items()
                guard f.count == 2 else { throw r.problem("must be [time, x]") }
                rows.append((try double(f[0]), try floats(f[1])))
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
