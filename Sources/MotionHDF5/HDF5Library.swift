// The one process-wide piece of MotionHDF5 (the project allows no other global mutable state): the lock every HDF5 call takes, the
// one-time library set-up, and the capture of HDF5's error stack into Swift values.
import CHDF5
import Foundation

/// Serialises all calls into libhdf5 and owns its one-time set-up.
///
/// Debian's HDF5 is built thread-safe (it serialises internally), but MotionHDF5's own handle
/// bookkeeping also needs protecting, and other HDF5 builds are not thread-safe at all; so every
/// HDF5 call in this module runs inside ``withLock(_:)``.
///
/// The lock is recursive: a handle's `deinit` closes it under the lock, and a `deinit` can run
/// while the lock is already held (the last reference to a dataset dropped inside a locked region).
enum HDF5Library {
    private static let lock: NSRecursiveLock = {
        let lock = NSRecursiveLock()
        lock.name = "MotionHDF5.HDF5Library"
        return lock
    }()

    /// `H5open()`, done once (Swift initialises a `static let` exactly once, thread-safely).
    /// Automatic error printing is turned off because errors are reported through ``HDF5Error``
    /// with the stack captured by ``errorStack()``.
    ///
    /// In a thread-safe HDF5 build each thread has its own error stack and auto-print setting, so
    /// ``withLock(_:)`` turns printing off on every entry (`H5Eset_auto2` is cheap and does not
    /// clear the stack) rather than keeping per-thread state.
    ///
    /// `H5dont_atexit()` comes first: libhdf5 then does not register its clean-up with
    /// `atexit`. That clean-up closes whatever is still open when the process exits, and in HDF5
    /// 1.10 it crashes (SIGSEGV in `H5F__close_cb`) on a file whose close failed earlier, e.g.
    /// on a full disk (HDFFV-11052). Every file this module opens is closed explicitly (or by
    /// `deinit`), so nothing is lost: a run that fails exits with its status, never a signal.
    ///
    /// Dynamic filter plugins are turned off (`H5PLset_loading_state(0)`): motionprep writes and
    /// reads only HDF5's built-in filters (shuffle, deflate, Fletcher-32), and a crafted file that
    /// names an unknown filter must fail to decode, not make libhdf5 load a shared library from
    /// `HDF5_PLUGIN_PATH` (docs/hardening.md, "Data safety: validate and the container format").
    private static let opened: Bool = {
        _ = H5dont_atexit()
        guard H5open() >= 0 else { return false }
        return H5PLset_loading_state(0) >= 0
    }()

    /// Runs `body` holding the HDF5 lock, after the one-time set-up.
    static func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        precondition(opened, "H5open() failed: libhdf5 could not be initialised")
        _ = H5Eset_auto2(CHDF5_H5E_DEFAULT(), nil, nil)
        return try body()
    }

    /// One entry of HDF5's error stack.
    struct ErrorRecord: Sendable, Equatable {
        /// The C function that pushed the entry, e.g. `H5Fcreate` or `H5F__super_read`.
        var function: String
        /// The entry's description, e.g. "file signature not found".
        var description: String
        /// The minor error message, e.g. "Unable to open file", used when the description is empty.
        var minorMessage: String
    }

    /// The calling thread's current HDF5 error stack, innermost (most specific) entry first.
    ///
    /// Call it right after a failed HDF5 call, inside ``withLock(_:)``: the next HDF5 API call
    /// clears the stack. The corresponding C function is `H5Ewalk2` with `H5E_WALK_UPWARD`.
    static func errorStack() -> [ErrorRecord] {
        final class Collector { var records: [ErrorRecord] = [] }
        let collector = Collector()
        let unmanaged = Unmanaged.passRetained(collector)
        defer { unmanaged.release() }
        _ = H5Ewalk2(CHDF5_H5E_DEFAULT(), H5E_WALK_UPWARD, { _, entry, context in
            guard let entry, let context else { return 0 }
            let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
            let function = entry.pointee.func_name.map { String(cString: $0) } ?? ""
            let description = entry.pointee.desc.map { String(cString: $0) } ?? ""
            var buffer = [CChar](repeating: 0, count: 256)
            var type = H5E_MINOR
            let length = H5Eget_msg(entry.pointee.min_num, &type, &buffer, buffer.count)
            let minor = length > 0 ? String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
            collector.records.append(ErrorRecord(function: function, description: description, minorMessage: minor))
            return 0
        }, unmanaged.toOpaque())
        return collector.records
    }

    /// A one-line summary of the current error stack: the innermost description and the API
    /// function that failed, e.g. "unable to truncate a file which is already open (H5Fcreate)".
    /// Empty when the stack is empty.
    static func errorSummary() -> String {
        let stack = errorStack()
        guard let innermost = stack.first else { return "" }
        var text = _conciseDescription(innermost.description)
        if text.isEmpty { text = innermost.minorMessage }
        if text.isEmpty { text = "unknown HDF5 error" }
        if let api = stack.last?.function, !api.isEmpty {
            text += " (\(api))"
        }
        return text
    }
}

/// Shortens the file driver's verbose open failure, "unable to open file: name = '…', errno = 2,
/// error message = 'No such file or directory', flags = 13, o_flags = 242", to "unable to open
/// file: No such file or directory" (the path is already in the message), and its read and
/// write failures, "file write failed: time = …, filename = '…', file descriptor = 6, errno =
/// 28, error message = 'No space left on device', buf = …", to "file write failed: No space
/// left on device". Other descriptions pass through unchanged.
func _conciseDescription(_ description: String) -> String {
    let marker = "error message = '"
    guard let head = description.range(of: ": name = '") ?? description.range(of: ": time = "),
          let start = description.range(of: marker),
          let end = description[start.upperBound...].firstIndex(of: "'")
    else { return description }
    return description[..<head.lowerBound] + ": " + description[start.upperBound..<end]
}
