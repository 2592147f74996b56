import MotionCore

/// One recording's rows for the `createml` output (docs/dataset-format.md, "Create ML folders"):
/// its labelled, gap-free stretches on the grid after every transform, and what was left out.
public struct RowStretches: Sendable, Equatable {
    /// A maximal run of consecutive valid grid points of one class, at least a window long.
    public struct Stretch: Sendable, Equatable {
        /// Index into the dataset's classes.
        public var classId: Int
        /// Each row's time (the grid point's, on the input's clock, in seconds).
        public var times: [Double]
        /// The rows, `times.count × C`, row by row: the channels of `x`, float32.
        public var values: [Float]
        /// The time of the grid point after the last row: the stretch covers [times[0], endTime).
        public var endTime: Double

        public init(classId: Int, times: [Double], values: [Float], endTime: Double) {
            self.classId = classId
            self.times = times
            self.values = values
            self.endTime = endTime
        }
    }

    public var stretches: [Stretch] = []
    /// Valid rows with no class (no label, or a label not in `classes`): not written.
    public var rowsUnlabelled = 0
    /// Stretches shorter than a window, and their rows: not written.
    public var stretchesTooShort = 0
    public var rowsTooShort = 0

    public init() {}

    /// Cuts rows into stretches: `gridPoints[i]` is row i's grid point (ascending; a point
    /// missing from the list is a gap), `classes[k]` grid point k's class (−1: none). Rows of one
    /// class on consecutive points make a stretch; one shorter than `minRows` is left out.
    public init(gridPoints: [Int], values: [Float], channels C: Int, classes: [Int64], minRows: Int,
                time: (Int) -> Double) {
        var i = 0
        let n = gridPoints.count
        while i < n {
            let c = classes[gridPoints[i]]
            if c < 0 {
                rowsUnlabelled += 1
                i += 1
                continue
            }
            var j = i + 1
            while j < n && gridPoints[j] == gridPoints[j - 1] + 1 && classes[gridPoints[j]] == c { j += 1 }
            if j - i < minRows {
                stretchesTooShort += 1
                rowsTooShort += j - i
            } else {
                stretches.append(Stretch(classId: Int(c), times: gridPoints[i..<j].map(time),
                                         values: Array(values[(i * C)..<(j * C)]), endTime: time(gridPoints[j - 1] + 1)))
            }
            i = j
        }
    }
}

/// One CSV file of a `createml` output, as the manifest's `createml.files` lists it.
public struct CreateMLFile: Sendable, Equatable {
    public init(path: String, split: String, label: String, recording: String, rows: Int, startTime: Double, endTime: Double) {
        self.path = path
        self.split = split
        self.label = label
        self.recording = recording
        self.rows = rows
        self.startTime = startTime
        self.endTime = endTime
    }

    /// Relative to the dataset folder: `{split}/{class}/{recording}__{NNN}.csv`.
    public var path: String
    public var split: String
    public var label: String
    public var recording: String
    public var rows: Int
    public var startTime: Double
    public var endTime: Double
}

/// What one split of a `createml` output holds and left out: its CSV files in the order
/// written, the windows the pipeline cut and kept (not written), and the rows left out. A
/// `--worker I/N` part stores it in `part.json`; `merge` sums the parts' (docs/scale.md).
public struct CreateMLSplitRows: Sendable, Equatable {
    public var files: [CreateMLFile] = []
    public var windowCount = 0
    public var windowClassCounts: [Int]
    public var rowsUnlabelled = 0
    public var stretchesTooShort = 0
    public var rowsTooShort = 0

    public init(classes: Int) { windowClassCounts = [Int](repeating: 0, count: classes) }
}

/// Writes one split of a `createml` output (docs/dataset-format.md, "Create ML folders"): a CSV
/// per stretch in `{split}/{class}/` — Create ML's `labeledDirectories` layout — and, at
/// `finish()`, `{split}/annotations.csv` naming every file of the split with its label and time
/// span — the `directoryWithDataAndAnnotation` form of the same files.
///
/// Windows are not written (`append` only counts them, for the run's warnings); rows come
/// through `append(rows:recording:)`, recording by recording in canonical order, so the files
/// and their order do not depend on `--jobs`. Each CSV is written under a temporary name,
/// hashed as it is written, and renamed when complete.
public final class CreateMLSplitSink: SplitSink {
    public let split: String
    let description: DatasetDescription
    let splitFolder: WritableFolder
    private var classFolders: [Int: WritableFolder] = [:]
    private var written: [WrittenFile] = []
    private var usedNames: [String: String] = [:]
    /// The split's CSV files, in the order written.
    public private(set) var files: [CreateMLFile] = []
    /// Windows the pipeline cut and kept for this split, and per class (not written).
    public private(set) var windowCount = 0
    public private(set) var windowClassCounts: [Int]
    /// What the split's recordings left out.
    public private(set) var rowsUnlabelled = 0
    public private(set) var stretchesTooShort = 0
    public private(set) var rowsTooShort = 0

    /// The annotation file's name in each split folder, and its columns.
    public static let annotationFileName = "annotations.csv"
    public static let annotationColumns = ["file", "label", "start_time", "end_time"]
    /// The data files' time column.
    public static let timeColumn = "time"

    public init(directory: WritableFolder, split: String, description: DatasetDescription) throws {
        self.split = split
        self.description = description
        splitFolder = try directory.subfolder(split)
        windowClassCounts = [Int](repeating: 0, count: description.classNames.count)
    }

    public func append(_ batch: WindowBatch, subjectIndex: Int32, recordingIndex: Int32, foldIndex: Int32?) throws {
        windowCount += batch.count
        for (c, n) in classCounts(batch.y, classes: windowClassCounts.count).enumerated() { windowClassCounts[c] += n }
    }

    /// Writes one recording's stretches, one CSV each.
    public func append(rows: RowStretches, recording: String) throws {
        rowsUnlabelled += rows.rowsUnlabelled
        stretchesTooShort += rows.stretchesTooShort
        rowsTooShort += rows.rowsTooShort
        let C = description.channelNames.count
        let stem = Self.fileStem(recording: recording)
        if let other = usedNames[stem], other != recording {
            throw MotionError(.dataError, "recordings `\(other)` and `\(recording)` both give the Create ML file name `\(stem)__NNN.csv` (a `/` becomes `__`); rename one of them")
        }
        usedNames[stem] = recording
        for (k, s) in rows.stretches.enumerated() {
            let label = description.classNames[s.classId]
            if classFolders[s.classId] == nil { classFolders[s.classId] = try splitFolder.subfolder(label) }
            let digits = String(k)
            let name = stem + "__" + String(repeating: "0", count: Swift.max(0, 3 - digits.count)) + digits + ".csv"
            let file = try _ShardFile(in: classFolders[s.classId]!, name: name)
            var text = Self.header(channels: description.channelNames)
            let n = s.times.count
            for r in 0..<n {
                text += "\(s.times[r])"
                for c in 0..<C { text += "," + Self.number(s.values[r * C + c]) }
                text += "\n"
                if text.utf8.count >= 1 << 16 {
                    try Self.write(text, to: file)
                    text = ""
                }
            }
            try Self.write(text, to: file)
            let digest = try file.commit()
            let path = split + "/" + label + "/" + name
            written.append(WrittenFile(path: path, numWindows: 0, classCounts: [Int](repeating: 0, count: description.classNames.count),
                                       sha256: digest.sha256, bytes: digest.bytes))
            files.append(CreateMLFile(path: path, split: split, label: label, recording: recording, rows: n,
                                      startTime: s.times[0], endTime: s.endTime))
        }
    }

    /// Writes `annotations.csv`; returns the CSVs in the order written, then the annotation file.
    public func finish() throws -> [WrittenFile] {
        written + [try Self.writeAnnotations(in: splitFolder, split: split, files: files, classes: description.classNames.count)]
    }

    /// A `--worker I/N` part: the CSVs in the order written (with their sizes and SHA-256), no
    /// annotation file (`merge` writes it from every part's files).
    public func finishPart() -> [WrittenFile] { written }

    /// What the split holds and left out, for a part's `part.json` and the manifest.
    public var rows: CreateMLSplitRows {
        var r = CreateMLSplitRows(classes: windowClassCounts.count)
        r.files = files
        r.windowCount = windowCount
        r.windowClassCounts = windowClassCounts
        r.rowsUnlabelled = rowsUnlabelled
        r.stretchesTooShort = stretchesTooShort
        r.rowsTooShort = rowsTooShort
        return r
    }

    /// Writes `{split}/annotations.csv` into `splitFolder`, one line per file of `files` in
    /// their order; returns it as a written file.
    public static func writeAnnotations(in splitFolder: WritableFolder, split: String, files: [CreateMLFile], classes: Int) throws -> WrittenFile {
        let file = try _ShardFile(in: splitFolder, name: annotationFileName)
        var text = annotationColumns.joined(separator: ",") + "\n"
        let prefix = split + "/"
        for f in files {
            text += field(String(f.path.dropFirst(prefix.count))) + "," + field(f.label) + ",\(f.startTime),\(f.endTime)\n"
        }
        try write(text, to: file)
        let digest = try file.commit()
        return WrittenFile(path: prefix + annotationFileName, numWindows: 0,
                           classCounts: [Int](repeating: 0, count: classes),
                           sha256: digest.sha256, bytes: digest.bytes)
    }

    /// A recording's name as a file name: `/` becomes `__`.
    public static func fileStem(recording: String) -> String { recording.replacing("/", with: "__") }

    /// The data files' header line: `time`, then the channels of `x`.
    public static func header(channels: [String]) -> String {
        ([timeColumn] + channels).map(field).joined(separator: ",") + "\n"
    }

    /// A float32 as the shortest decimal that reads back as the same float32 (Swift's
    /// `description`: `0.1`, `-2.5e-05`).
    static func number(_ v: Float) -> String { v.description }

    /// One CSV field, quoted (RFC 4180) only when it holds a comma, a quote or a line break.
    static func field(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacing("\"", with: "\"\"") + "\""
    }

    private static func write(_ text: String, to file: _ShardFile) throws {
        var t = text
        try t.withUTF8 { try file.write(UnsafeRawBufferPointer($0)) }
    }
}
