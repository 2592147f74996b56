#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// A folder that files are created in through its directory descriptor (`openat`, `mkdirat`,
/// `renameat`), never by its path: whatever is put at the path later (a link to another folder,
/// another folder) is not written into (docs/hardening.md, "No race between check and use").
/// The sinks take one; they do not know where it came from.
public final class WritableFolder: @unchecked Sendable {
    /// The folder's descriptor (`O_DIRECTORY`).
    public let descriptor: Int32
    /// The folder's path as messages give it; never opened.
    public let path: String
    private let owned: Bool

    /// A folder already opened by the caller, who keeps it open for as long as this is used.
    public init(borrowing descriptor: Int32, shownAs path: String) {
        self.descriptor = descriptor
        self.path = path
        owned = false
    }

    /// Opens `path` as a folder, never through a link (`O_DIRECTORY | O_NOFOLLOW`).
    public init(opening path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw MotionError(.cannotCreate, "cannot open the folder \(path): \(Self.reason())") }
        descriptor = fd
        self.path = path
        owned = true
    }

    private init(owning descriptor: Int32, shownAs path: String) {
        self.descriptor = descriptor
        self.path = path
        owned = true
    }

    deinit { if owned { close(descriptor) } }

    /// `path/name`, for messages.
    public func shown(_ name: String) -> String { path + "/" + name }

    /// A path the kernel resolves through the descriptor, for libraries that open files by path
    /// (libhdf5): `/proc/self/fd/N/name`.
    public func kernelPath(_ name: String) -> String { "/proc/self/fd/\(descriptor)/\(name)" }

    /// The subfolder `name`, created (`mkdirat`) if it does not exist, opened without following
    /// a link (`O_DIRECTORY | O_NOFOLLOW`).
    public func subfolder(_ name: String) throws -> WritableFolder {
        if mkdirat(descriptor, name, 0o755) != 0 && errno != EEXIST {
            throw MotionError(.cannotCreate, "cannot create \(shown(name)): \(Self.reason())")
        }
        let fd = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw MotionError(.cannotCreate, "cannot open \(shown(name)): \(Self.reason())") }
        return WritableFolder(owning: fd, shownAs: shown(name))
    }

    /// Creates (or truncates) the file `name` in the folder, never through a link
    /// (`O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC`); `access` is `O_WRONLY` or `O_RDWR`.
    public func create(_ name: String, access: Int32 = O_WRONLY, mode: mode_t = 0o644) throws -> Int32 {
        let fd = openat(descriptor, name, access | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw MotionError(.cannotCreate, "cannot create \(shown(name)): \(Self.reason())") }
        return fd
    }

    /// Renames `from` to `to` within the folder; the system's reason when it fails.
    public func rename(_ from: String, to: String) -> String? {
        renameat(descriptor, from, descriptor, to) == 0 ? nil : Self.reason()
    }

    /// Removes the file `name` from the folder.
    public func remove(_ name: String) { unlinkat(descriptor, name, 0) }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
