/// The stable name of one dataset check, e.g. `files.sha256`.
///
/// Ids never change once released: CI systems key test history on them (each is one JUnit
/// testcase). ``CheckID/catalogue`` lists every id in report order with a one-line summary;
/// `docs/validate.md` explains each.
public struct CheckID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// Report order: the catalogue's order; ids not in it sort last, by name.
    public static func < (a: CheckID, b: CheckID) -> Bool {
        let ia = order[a] ?? Int.max, ib = order[b] ?? Int.max
        return ia != ib ? ia < ib : a.rawValue < b.rawValue
    }

    // MARK: Manifest and files

    /// `manifest.json` exists and is valid JSON.
    public static let manifestParse = CheckID("manifest.parse")
    /// The manifest matches its schema (docs/dataset-format.md, "Manifest, checksums and commit"): keys, types, and values consistent with each other.
    public static let manifestSchema = CheckID("manifest.schema")
    /// `split_policy`, `classes` and `chain` agree with `pipeline.resolved` (docs/validate.md, "Consistency rules").
    public static let manifestConsistency = CheckID("manifest.consistency")
    /// The manifest's `storage` has a reader in this build.
    public static let storageSupported = CheckID("storage.supported")
    /// `SHA256SUMS` exists and lists exactly the manifest's data files with the same digests.
    public static let filesSHA256SUMS = CheckID("files.sha256sums")
    /// Every data file the manifest lists exists.
    public static let filesExist = CheckID("files.exist")
    /// Every listed file has the listed size in bytes.
    public static let filesSize = CheckID("files.size")
    /// Every listed file has the listed SHA-256.
    public static let filesSHA256 = CheckID("files.sha256")
    /// No file in the folder is missing from the manifest (besides `manifest.json`, `SHA256SUMS`,
    /// a top-level `README*` and `report.html`).
    public static let filesUnlisted = CheckID("files.unlisted")
    /// Every path in the folder is a regular file or a folder: no symbolic links, FIFOs, sockets or
    /// devices (found with `lstat`, never opened).
    public static let filesRegular = CheckID("files.regular")
    /// Every listed file holds its data itself, in the container features motionprep writes: no
    /// HDF5 links, groups, external or virtual storage, or layouts other than chunked; a shard
    /// decompresses to no more than its manifest entry allows.
    public static let filesContainer = CheckID("files.container")
    /// Every listed file opens and decodes in its storage format (HDF5 checksums included).
    public static let filesReadable = CheckID("files.readable")
    /// What each file says about itself (HDF5 attributes, shard headers) agrees with the manifest.
    public static let filesMetadata = CheckID("files.metadata")

    // MARK: Arrays and values

    /// Each file holds exactly the manifest's arrays, with its shapes, all with the same row count.
    public static let arraysShape = CheckID("arrays.shape")
    /// Each array has the manifest's dtype.
    public static let arraysDtype = CheckID("arrays.dtype")
    /// Windows and class counts recomputed from each file match the manifest's entry for the file.
    public static let countsFile = CheckID("counts.file")
    /// Windows and class counts of each split add up (files → split) and match the data.
    public static let countsSplit = CheckID("counts.split")
    /// Every `y` is a class id; −1 throughout an unlabelled dataset.
    public static let labelsRange = CheckID("labels.range")
    /// `y_seq` (`labels.per_sample`) holds class ids or −1, and each window's `y` is what the
    /// label policy gives from it (rule C8). Reported only for a dataset with `y_seq`.
    public static let labelsPerSample = CheckID("labels.per_sample")
    /// `qa` (the pipeline's `qa`) holds fractions from 0 to 1. Reported only for a dataset with `qa`.
    public static let qaRange = CheckID("qa.range")
    /// `subject_index`, `recording_index` and `fold_index` point into the manifest's lists.
    public static let indicesRange = CheckID("indices.range")
    /// No NaN or infinity in `x`, `features` or `start_time_s`.
    public static let valuesFinite = CheckID("values.finite")
    /// The manifest's `normalization` equals the statistics recomputed from the train split.
    public static let normalizationStats = CheckID("normalization.stats")
    /// An applied output's `x_normalized` and `features_normalized` are `(v − mean) / std` of
    /// `x` and `features` with the manifest's `normalization`, bit for bit.
    public static let normalizationApplied = CheckID("normalization.applied")
    /// No subject has windows in two splits (when splitting by subject).
    public static let splitsDisjointSubjects = CheckID("splits.disjoint_subjects")
    /// No recording has windows in two splits.
    public static let splitsDisjointRecordings = CheckID("splits.disjoint_recordings")
    /// No window (its `x`, bit for bit) is in two splits.
    public static let splitsDisjointWindows = CheckID("splits.disjoint_windows")
    /// Within a recording, each window starts after the one before it (in window order).
    public static let windowsTimeOrder = CheckID("windows.time_order")
    /// Each window's `features` are those the run's feature code computes from its `x`, bit for bit.
    public static let featuresRecomputed = CheckID("features.recomputed")

    // MARK: Expectations (`--expect FILE`)

    /// Every channel in `required_channels` is in the dataset.
    public static let expectChannels = CheckID("expect.channels")
    /// Every class in `required_classes` is in the dataset.
    public static let expectClasses = CheckID("expect.classes")
    /// Each split holds at least `min_windows` windows.
    public static let expectMinWindows = CheckID("expect.min_windows")
    /// Each class of each split holds at least `min_windows_per_class` windows.
    public static let expectMinWindowsPerClass = CheckID("expect.min_windows_per_class")
    /// Largest over smallest class count of each split is at most `max_imbalance_ratio`.
    public static let expectMaxImbalance = CheckID("expect.max_imbalance_ratio")
    /// Every value of each channel in `value_ranges` lies within its range.
    public static let expectValueRange = CheckID("expect.value_ranges")
    /// Windows dropped during the run are at most `max_dropped_fraction` of all windows cut.
    public static let expectMaxDroppedFraction = CheckID("expect.max_dropped_fraction")

    /// Every check, in report order, with a one-line summary.
    public static let catalogue: [(id: CheckID, summary: String)] = [
        (.manifestParse, "manifest.json exists and is valid JSON"),
        (.manifestSchema, "the manifest matches its schema"),
        (.manifestConsistency, "split_policy, classes and chain agree with pipeline.resolved"),
        (.storageSupported, "the manifest's storage can be read by this build"),
        (.filesSHA256SUMS, "SHA256SUMS lists exactly the manifest's data files with the same digests"),
        (.filesExist, "every listed data file exists"),
        (.filesSize, "every listed file has the listed size"),
        (.filesSHA256, "every listed file has the listed SHA-256"),
        (.filesUnlisted, "no files the manifest does not list"),
        (.filesRegular, "only regular files and folders (no symlinks, FIFOs, sockets, devices)"),
        (.filesContainer, "data files hold their data themselves (no HDF5 links, external or virtual storage; bounded shards)"),
        (.filesReadable, "every listed file decodes"),
        (.filesMetadata, "each file's own metadata agrees with the manifest"),
        (.arraysShape, "arrays and shapes match the manifest"),
        (.arraysDtype, "dtypes match the manifest"),
        (.countsFile, "window and class counts of each file match the data"),
        (.countsSplit, "window and class counts of each split add up and match the data"),
        (.labelsRange, "every y is a valid class id (-1 when unlabelled)"),
        (.labelsPerSample, "y_seq holds class ids or -1, and each y is what the label policy gives from its y_seq"),
        (.qaRange, "qa holds fractions from 0 to 1"),
        (.indicesRange, "subject, recording and fold indices are in range"),
        (.valuesFinite, "no NaN or Inf in x, features or start_time_s"),
        (.normalizationStats, "normalization matches the train split"),
        (.normalizationApplied, "an applied output's normalised arrays are (v - mean) / std with its normalization"),
        (.splitsDisjointSubjects, "subjects are disjoint across splits"),
        (.splitsDisjointRecordings, "recordings are disjoint across splits"),
        (.splitsDisjointWindows, "no window is in two splits"),
        (.windowsTimeOrder, "start_time_s increases within each recording"),
        (.featuresRecomputed, "features equal those recomputed from x with the run's feature code"),
        (.expectChannels, "required channels are present"),
        (.expectClasses, "required classes are present"),
        (.expectMinWindows, "minimum windows per split"),
        (.expectMinWindowsPerClass, "minimum windows per class and split"),
        (.expectMaxImbalance, "maximum class-imbalance ratio per split"),
        (.expectValueRange, "values per channel lie within their ranges"),
        (.expectMaxDroppedFraction, "maximum fraction of windows dropped during the run"),
    ]

    private static let order: [CheckID: Int] = {
        var o: [CheckID: Int] = [:]
        for (i, entry) in catalogue.enumerated() { o[entry.id] = i }
        return o
    }()
}
