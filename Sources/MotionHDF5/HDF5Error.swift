import MotionCore

/// A failed HDF5 operation, as a sentence for a person plus the exit status it maps to.
///
/// The message names the file (and the dataset or attribute when there is one) and ends with the
/// innermost description from HDF5's error stack and the API function that failed, e.g.
/// "cannot create `out/train.h5`: unable to truncate a file which is already open (H5Fcreate)".
///
/// Exit statuses: `.cannotCreate` when a file or dataset cannot be created, `.noInput` when a file
/// to read does not exist, `.dataError` when a file is not HDF5 or lacks a dataset or attribute,
/// or holds one of an unexpected kind, and `.ioError` when reading or writing fails.
public struct HDF5Error: UserFacingError, Equatable, Sendable {
    /// The sentence to print (no trailing newline).
    public var message: String
    /// The exit status this failure maps to.
    public var exitStatus: ExitStatus
    /// The file's path, as the caller gave it.
    public var path: String
    /// The dataset or attribute involved, if any.
    public var objectName: String?
    /// The summary of HDF5's error stack ("innermost description (API function)"), or `nil` when
    /// the failure was detected by MotionHDF5 itself rather than reported by libhdf5.
    public var libraryDetail: String?

    /// Creates an error; `message` is built from the parts.
    ///
    /// - Parameters:
    ///   - exitStatus: the status to exit with.
    ///   - action: what failed, starting lowercase, naming the object, e.g. "cannot open dataset `x` in".
    ///     The file is appended as "`path`".
    ///   - path: the HDF5 file.
    ///   - objectName: the dataset or attribute, if any.
    ///   - reason: why, e.g. the HDF5 error summary; omitted from the message when empty.
    init(_ exitStatus: ExitStatus, _ action: String, path: String, objectName: String? = nil,
         reason: String, libraryDetail: String? = nil) {
        self.exitStatus = exitStatus
        self.path = path
        self.objectName = objectName
        self.libraryDetail = libraryDetail
        var message = "\(action) `\(path)`"
        if !reason.isEmpty { message += ": \(reason)" }
        self.message = message
    }

    /// An error for an HDF5 call that just failed, with the calling thread's HDF5 error stack
    /// captured into the message. Must be called inside `HDF5Library.withLock` before any other
    /// HDF5 call (which would clear the stack).
    static func fromLibrary(_ exitStatus: ExitStatus, _ action: String, path: String,
                            objectName: String? = nil) -> HDF5Error {
        let summary = HDF5Library.errorSummary()
        return HDF5Error(exitStatus, action, path: path, objectName: objectName,
                         reason: summary.isEmpty ? "HDF5 reported no details" : summary,
                         libraryDetail: summary)
    }
}
