import MotionCore

/// A failure inside libdeflate, with what was being done and the sizes involved.
public struct DeflateError: UserFacingError, Equatable {
    /// What failed, as a sentence fragment, e.g. "cannot decompress a zlib stream of 1234 bytes".
    public var action: String
    /// Why, e.g. "the data is not a valid zlib stream (LIBDEFLATE_BAD_DATA)".
    public var reason: String

    public init(_ action: String, reason: String) {
        self.action = action
        self.reason = reason
    }

    public var message: String { "\(action): \(reason)" }
    public var description: String { message }
    /// Every libdeflate failure here is a data or resource problem, not a usage error.
    public var exitStatus: ExitStatus { .dataError }
}
