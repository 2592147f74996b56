import MotionCore

/// The three splits, in the order the manifest, the writers and the reports use.
public enum SplitName: String, Sendable, Comparable {
    /// A dataset's three splits (docs/dataset-format.md, "Splits").
    case train, validation, test
    /// The one split of an applied output (docs/dataset-format.md, "Applied windows").
    case windows

    /// The splits of a dataset written by `run` or `merge`, in the manifest's order.
    public static let datasetSplits: [SplitName] = [.train, .validation, .test]
    /// Every name, in order: a dataset's splits, then an applied output's.
    public static let order: [SplitName] = [.train, .validation, .test, .windows]

    public static func < (a: SplitName, b: SplitName) -> Bool {
        order.firstIndex(of: a)! < order.firstIndex(of: b)!
    }
}

/// The dtype and per-row shape of one array (`"shape": [null, 128, 7]` → `rowShape` `[128, 7]`).
public struct ArraySchema: Sendable, Equatable {
    /// numpy's name: `float32`, `float64`, `int32` or `int64`.
    public var dtype: String
    /// The shape of one window's row, without the window axis.
    public var rowShape: [Int]

    public init(dtype: String, rowShape: [Int]) {
        self.dtype = dtype
        self.rowShape = rowShape
    }

    /// `[null, 128, 7]`, as the manifest writes the shape.
    public var shapeText: String { "[" + (["null"] + rowShape.map(String.init)).joined(separator: ", ") + "]" }
}

/// What docs/dataset-format.md fixes about a dataset's layout, independent of the storage: the
/// array names, dtypes and shapes ("HDF5 files"), the split names and the storages.
public enum DatasetSchema {
    /// The manifest's `format`.
    public static let format = "motionprep.dataset"
    /// The manifest's `format` of an applied output (docs/dataset-format.md, "Applied windows").
    public static let appliedFormat = "motionprep.applied"
    /// The `format_version` of an applied output this build writes and reads.
    public static let appliedFormatVersion = 1
    /// The manifest `format_version` this build writes and reads.
    public static let formatVersion = 2
    /// The format versions this build reads (only the one it writes).
    public static let readableVersions = [formatVersion]
    /// The manifest's file name in the dataset folder.
    public static let manifestFileName = "manifest.json"
    /// The checksum file's name.
    public static let sumsFileName = "SHA256SUMS"
    /// The manifest's `storage` values.
    public static let storages = ["hdf5", "shards", "createml"]
    /// Array names in the contract's table order.
    public static let arrayNames = ["x", "y", "y_seq", "qa", "features", "subject_index", "recording_index", "start_time_s", "fold_index",
                                    "x_normalized", "features_normalized"]

    /// The dtype of each array (docs/dataset-format.md, "HDF5 files").
    public static let dtypes = ["x": "float32", "y": "int64", "y_seq": "int64", "qa": "float32", "features": "float32", "subject_index": "int32",
                                "recording_index": "int32", "start_time_s": "float64", "fold_index": "int32",
                                "x_normalized": "float32", "features_normalized": "float32"]

    /// The arrays of a dataset with these channels, features and folds; `y_seq` [T] with
    /// `labels.per_sample` (`hasYSeq`).
    public static func arrays(windowLength: Int, channels: Int, features: Int, hasFolds: Bool,
                              hasYSeq: Bool = false, qaColumns: Int = 0) -> [String: ArraySchema] {
        func array(_ name: String, _ rowShape: [Int]) -> ArraySchema { ArraySchema(dtype: dtypes[name]!, rowShape: rowShape) }
        var a: [String: ArraySchema] = [
            "x": array("x", [windowLength, channels]),
            "y": array("y", []),
            "subject_index": array("subject_index", []),
            "recording_index": array("recording_index", []),
            "start_time_s": array("start_time_s", []),
        ]
        if features > 0 { a["features"] = array("features", [features]) }
        if hasFolds { a["fold_index"] = array("fold_index", []) }
        if hasYSeq { a["y_seq"] = array("y_seq", [windowLength]) }
        if qaColumns > 0 { a["qa"] = array("qa", [qaColumns]) }
        return a
    }

    /// The arrays of an applied output: a dataset's without `fold_index`, with `x_normalized`
    /// (and `features_normalized` when there are features).
    public static func appliedArrays(windowLength: Int, channels: Int, features: Int, hasYSeq: Bool = false,
                                     qaColumns: Int = 0) -> [String: ArraySchema] {
        var a = arrays(windowLength: windowLength, channels: channels, features: features, hasFolds: false, hasYSeq: hasYSeq,
                       qaColumns: qaColumns)
        a["x_normalized"] = ArraySchema(dtype: "float32", rowShape: [windowLength, channels])
        if features > 0 { a["features_normalized"] = ArraySchema(dtype: "float32", rowShape: [features]) }
        return a
    }

    /// Whether a resolved pipeline (`pipeline.resolved`) asks for `y_seq`:
    /// `labels.per_sample: true` (docs/pipeline.md, "labels").
    public static func hasYSeq(resolved: JSONValue) -> Bool {
        if case .object(let o) = resolved, case .object(let l)? = o["labels"], case .bool(true)? = l["per_sample"] { return true }
        return false
    }

    /// The `qa` columns of a resolved pipeline with a `qa` section (docs/pipeline.md, "qa"), in
    /// order; empty without one.
    public static let qaColumnNames = WindowBatch.qaColumns
    public static func qaColumns(resolved: JSONValue) -> [String] {
        if case .object(let o) = resolved, case .object? = o["qa"] { return qaColumnNames }
        return []
    }

    /// Array names in the contract's table order (then any others by name).
    public static func arrayOrder(_ names: some Sequence<String>) -> [String] {
        let canonical = arrayNames
        return Array(names).sorted { a, b in
            let ia = canonical.firstIndex(of: a) ?? canonical.count, ib = canonical.firstIndex(of: b) ?? canonical.count
            return ia != ib ? ia < ib : a < b
        }
    }
}
