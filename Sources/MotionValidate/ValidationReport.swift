/// One way a dataset is broken: the check that caught it, the file it is in, and a sentence.
public struct ValidationFailure: Sendable, Equatable, CustomStringConvertible {
    /// The check that failed.
    public var check: CheckID
    /// The file the problem is in, relative to the dataset folder (`train.h5`, `manifest.json`,
    /// `SHA256SUMS`); problems about a whole split or the dataset name `manifest.json`.
    public var file: String
    /// What is wrong, naming the split, class, channel or window where there is one; it does
    /// not repeat the file or the check id.
    public var message: String

    public init(check: CheckID, file: String, message: String) {
        self.check = check
        self.file = file
        self.message = message
    }

    /// `file: check: message`.
    public var description: String { "\(file): \(check): \(message)" }
}

/// The outcome of one check over the whole dataset.
public struct CheckOutcome: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        /// The check ran and found nothing wrong.
        case passed
        /// The check found at least one problem.
        case failed
        /// The check could not run (e.g. the manifest did not parse); `skipReason` says why.
        /// A skipped check never makes a dataset pass: something else has failed.
        case skipped
    }
    public var id: CheckID
    public var status: Status
    /// Every problem found, in the order found (files in manifest order).
    public var failures: [ValidationFailure]
    /// Why the check did not run, for `.skipped`.
    public var skipReason: String?
}

/// Everything `motionprep validate DATASET_DIR` found.
public struct ValidationReport: Sendable, Equatable {
    /// The dataset folder as the user named it.
    public var dataset: String
    /// One outcome per check that applies, in ``CheckID`` report order.
    public var checks: [CheckOutcome]
    /// Bytes of data files read (each listed file that exists, once).
    public var dataBytes: Int
    /// Windows read from data files.
    public var windows: Int

    /// Every failure of every check, in report order.
    public var failures: [ValidationFailure] { checks.flatMap(\.failures) }

    /// True when no check failed. A report with skipped checks always also has a failure.
    public var passed: Bool { !checks.contains { $0.status == .failed } }

    /// The outcome of `id`, if it applied.
    public func outcome(_ id: CheckID) -> CheckOutcome? { checks.first { $0.id == id } }
}

/// Collects outcomes while the validator runs: a check is passed once it ran, failed once it
/// reported a problem, skipped when it never ran.
struct ReportBuilder {
    private var ran: Set<CheckID> = []
    private var skipped: [CheckID: String] = [:]
    private var failures: [CheckID: [ValidationFailure]] = [:]

    /// Marks `id` as run (passed unless a failure is or was reported).
    mutating func ran(_ id: CheckID) { ran.insert(id) }

    /// Records a failure of `id` in `file`.
    mutating func fail(_ id: CheckID, _ file: String, _ message: String) {
        ran.insert(id)
        failures[id, default: []].append(ValidationFailure(check: id, file: file, message: message))
    }

    /// Marks `id` as not run, unless it already ran.
    mutating func skip(_ id: CheckID, _ reason: String) {
        if skipped[id] == nil { skipped[id] = reason }
    }

    func hasFailed(_ id: CheckID) -> Bool { !(failures[id] ?? []).isEmpty }

    func build(dataset: String, dataBytes: Int, windows: Int) -> ValidationReport {
        let ids = Set(ran).union(skipped.keys).sorted()
        let checks = ids.map { id -> CheckOutcome in
            if let f = failures[id], !f.isEmpty {
                return CheckOutcome(id: id, status: .failed, failures: f, skipReason: nil)
            }
            if ran.contains(id) { return CheckOutcome(id: id, status: .passed, failures: [], skipReason: nil) }
            return CheckOutcome(id: id, status: .skipped, failures: [], skipReason: skipped[id])
        }
        return ValidationReport(dataset: dataset, checks: checks, dataBytes: dataBytes, windows: windows)
    }
}
