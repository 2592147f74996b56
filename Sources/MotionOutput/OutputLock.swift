#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionCore

/// One writer at a time per output folder (docs/hardening.md, "Data safety: output folders"):
/// `DIR.lock` beside the output, held with `flock(2)` for the whole run, the way git holds
/// `index.lock` — but a lock left behind by a killed run is recognised as stale, because the
/// kernel drops a `flock` when its process dies.
///
/// The file holds `motionprep lock\npid N\n`. An existing `DIR.lock` that is not a regular file, or
/// that holds anything else, is not ours: it is refused, never replaced or deleted.
package final class OutputLock {
    package static let magic = "motionprep lock\n"
    package let path: String
    private var fd: Int32
    /// The process id written in a stale lock this one took over, for a notice.
    package let staleOwner: Int32?

    /// Takes the lock for `outputDirectory` (`outputDirectory + ".lock"`), or throws.
    ///
    /// - Throws: `MotionError(.cannotCreate)` when another process holds it ("in use by process
    ///   N"), when `DIR.lock` exists and was not made by motionprep, or when it cannot be created.
    package init(outputDirectory: String) throws {
        path = outputDirectory + ".lock"
        var stale: Int32?
        while true {
            var created = true
            var descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if descriptor < 0 && errno == EEXIST {
                created = false
                descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            }
            guard descriptor >= 0 else {
                let code = errno
                if code == ELOOP {
                    throw MotionError(.cannotCreate, "cannot lock the output \(outputDirectory): \(path) is a symbolic link; motionprep does not follow links for its lock file: remove it")
                }
                if code == EEXIST || code == ENOENT { continue }  // removed or created between the two opens
                throw MotionError(.cannotCreate, "cannot create the lock file \(path): \(String(cString: strerror(code)))")
            }
            var st = stat()
            guard fstat(descriptor, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                close(descriptor)
                throw MotionError(.cannotCreate, "cannot lock the output \(outputDirectory): \(path) exists and is not a regular file; motionprep did not make it: move it away")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                let owner = Self.owner(Self.contents(descriptor))
                close(descriptor)
                if code == EWOULDBLOCK {
                    let who = owner.map { "process \($0)" } ?? "another motionprep process"
                    throw MotionError(.cannotCreate, "the output \(outputDirectory) is in use by \(who) (it holds \(path)); wait for that run to finish, or choose another output folder")
                }
                throw MotionError(.cannotCreate, "cannot lock \(path): \(String(cString: strerror(code)))")
            }
            // The file may have been unlinked by its previous holder between our open and flock:
            // then the lock we hold is on an orphan, and we start again.
            var now = stat()
            if lstat(path, &now) != 0 || FileID(now) != FileID(st) {
                close(descriptor)
                continue
            }
            if !created {
                let text = Self.contents(descriptor)
                // Empty: a motionprep killed between creating the file and writing it.
                guard text.isEmpty || text.hasPrefix(Self.magic) else {
                    close(descriptor)
                    throw MotionError(.cannotCreate, "cannot lock the output \(outputDirectory): \(path) exists and was not made by motionprep (it does not start with `motionprep lock`); move it away")
                }
                stale = Self.owner(text)
            }
            let text = Array("\(Self.magic)pid \(getpid())\n".utf8)
            guard ftruncate(descriptor, 0) == 0,
                  text.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, 0) }) == text.count else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw MotionError(.cannotCreate, "cannot write the lock file \(path): \(reason)")
            }
            fd = descriptor
            staleOwner = stale
            return
        }
    }

    /// Removes `DIR.lock` (while still holding it, so that no other process can take a lock on
    /// the file being removed) and releases it.
    package func release() {
        guard fd >= 0 else { return }
        unlink(path)
        close(fd)
        fd = -1
    }

    deinit { release() }

    private static func contents(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return "" }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }

    private static func owner(_ text: String) -> Int32? {
        guard text.hasPrefix(magic) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("pid ") {
            return Int32(line.dropFirst(4))
        }
        return nil
    }
}
