import Foundation
import Testing

@testable import MotionHDF5

/// libhdf5 opens files without `O_CLOEXEC` and `flock()`s them. A child process spawned while a
/// file is open would inherit the descriptor, and with it the lock, which outlives our
/// `H5Fclose` for as long as the child runs: the next open of that file for writing then fails
/// with EAGAIN ("unable to lock file"). `HDF5File` marks the descriptor close-on-exec.
@Suite(.serialized) struct HDF5ChildProcessTests {
    /// A child that inherits every descriptor not marked close-on-exec, as `fork` + `exec`,
    /// `system()` or `posix_spawn` without file actions give (Foundation's `Process` closes the
    /// descriptors it sees open when it builds its spawn actions, so it only inherits one opened
    /// concurrently on another thread; this makes that race certain).
    private struct Sleeper: ~Copyable {
        let pid: pid_t

        init(seconds: Int) throws {
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("sleep"), strdup(String(seconds)), nil]
            defer { argv.forEach { free($0) } }
            let status = posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ)
            guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
            self.pid = pid
        }

        /// True while the child has not exited.
        var isRunning: Bool {
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) == 0
        }

        deinit {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }

    @Test(arguments: ["created", "opened read-only"])
    func reopeningForWritingWhileAChildLives(_ how: String) throws {
        let directory = try TemporaryDirectory(label: "hdf5-child")
        defer { directory.remove() }
        let path = directory.path("train.h5")
        try WindowFixture(windows: 3).write(to: path)

        let file = how == "created" ? try HDF5File.create(path: path) : try HDF5File.openReadOnly(path: path)
        let sleeper = try Sleeper(seconds: 30)
        try file.close()

        // Both the exclusive lock of a writer and the shared lock of a reader would block this.
        // Under `swift test` other suites spawn Python children concurrently, and one started
        // during our H5Fopen (before the descriptor is marked) may hold the lock for a second
        // or two: that race is libhdf5's, not what this test is about, so retry while it lasts.
        // Our own child lives 30 s: if it held the lock, every attempt would fail.
        var attempts = 0
        while true {
            attempts += 1
            do {
                let again = try HDF5File.create(path: path)
                try again.close()
                break
            } catch where attempts < 40 && "\(error)".contains("errno = 11") {
                usleep(250_000)
            }
        }
        let alive = sleeper.isRunning
        #expect(alive, "the child should still be alive when the file is reopened")
    }

    @Test(arguments: ["created", "opened read-only"])
    func theDescriptorIsCloseOnExec(_ how: String) throws {
        let directory = try TemporaryDirectory(label: "hdf5-cloexec")
        defer { directory.remove() }
        let path = directory.path("train.h5")
        try WindowFixture(windows: 1).write(to: path)
        let file = how == "created" ? try HDF5File.create(path: path) : try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let fd = try file._fileDescriptor()
        #expect(fd > 2)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    }
}
