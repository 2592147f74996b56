import Foundation
import MotionHDF5
@_exported import MotionTestSupport



/// The arrays and attributes of the standard fixture file (the contract's (docs/dataset-format.md, "HDF5 files") layout, N windows of
/// T × C samples), with awkward values: NaN payloads, ±0, ±∞, subnormals, integer extremes.
struct WindowFixture {
    var windows: Int
    var timeSteps = 128
    var channels = 7
    var x: [Float] = []
    var y: [Int64] = []
    var subjectIndex: [Int32] = []
    var startTime: [Double] = []
    /// Row counts of the successive appends (uneven, summing to `windows`).
    var batches: [Int] = []

    static let classNames = ["walk", "turn", "Müller", "步行", ""]
    static let channelNames = ["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z", "baro"]
    /// Rows per chunk of `x` for about 64 KiB chunks: 65536 / (128 × 7 × 4) = 18.
    var xChunkRows: Int { max(1, 65536 / (timeSteps * channels * 4)) }

    init(windows: Int, seed: UInt64 = 42) {
        self.windows = windows
        var random = SeededGenerator(seed: seed)
        let specialFloats: [Float] = [.nan, -.nan, Float(bitPattern: 0x7FC0_1234), .infinity, -.infinity,
                                      0, -0.0, .leastNonzeroMagnitude, -.greatestFiniteMagnitude]
        x = (0..<(windows * timeSteps * channels)).map { index in
            index % 997 == 0 ? specialFloats[(index / 997) % specialFloats.count]
                             : Float.random(in: -20...20, using: &random)
        }
        let extremes: [Int64] = [.min, .max, -1, 0]
        y = (0..<windows).map { $0 < extremes.count ? extremes[$0] : Int64.random(in: -1..<5, using: &random) }
        subjectIndex = (0..<windows).map { $0 == 0 ? .min : ($0 == 1 ? .max : Int32.random(in: 0..<40, using: &random)) }
        startTime = (0..<windows).map { (index: Int) -> Double in
            if index == 0 { return -Double.nan }
            let jitter = Double.random(in: 0..<1e-3, using: &random)
            return 1.7e9 + Double(index) * 1.28 + jitter
        }
        var remaining = windows
        while remaining > 0 {
            let batch = min(remaining, Int.random(in: 0...97, using: &random))
            batches.append(batch)
            remaining -= batch
        }
    }

    /// Writes the fixture to a new file at `path` and closes it.
    func write(to path: String) throws {
        let file = try HDF5File.create(path: path)
        let xSet = try file.createDataset("x", type: .float32, rowShape: [timeSteps, channels], chunkRows: xChunkRows)
        let ySet = try file.createDataset("y", type: .int64, rowShape: [], chunkRows: 4096)
        let subjectSet = try file.createDataset("subject_index", type: .int32, rowShape: [], chunkRows: 4096)
        let timeSet = try file.createDataset("start_time_s", type: .float64, rowShape: [], chunkRows: 4096)
        var row = 0
        let rowFloats = timeSteps * channels
        for batch in batches {
            let range = row..<(row + batch)
            // x goes through the raw-pointer overload, the others through the typed ones.
            try x[(range.lowerBound * rowFloats)..<(range.upperBound * rowFloats)].withUnsafeBytes {
                try xSet.append($0, rows: batch)
            }
            try ySet.append(Array(y[range]), rows: batch)
            try subjectSet.append(Array(subjectIndex[range]), rows: batch)
            try timeSet.append(Array(startTime[range]), rows: batch)
            row += batch
        }
        try file.setAttribute("format", string: "motionprep.windows")
        try file.setAttribute("format_version", int: 1)
        try file.setAttribute("split", string: "train")
        try file.setAttribute("sample_rate_hz", double: 50)
        try file.setAttribute("window_length", int: Int64(timeSteps))
        try file.setAttribute("window_stride", int: 64)
        try file.setAttribute("channel_names", strings: Self.channelNames)
        try file.setAttribute("class_names", strings: Self.classNames)
        try file.setAttribute("feature_names", strings: [])
        try file.setAttribute("subject_names", strings: ["Müller", "步行者", "s03"])
        try file.setAttribute("note", string: "Grüße aus 北京 🚶")
        try file.setAttribute("min_value", int: .min)
        try file.setAttribute("tiny", double: -.leastNonzeroMagnitude)
        try file.close()
    }
}

/// Bit patterns, so NaN payloads and -0 compare exactly.
func bits(_ values: [Float]) -> [UInt32] { values.map(\.bitPattern) }
func bits(_ values: [Double]) -> [UInt64] { values.map(\.bitPattern) }

