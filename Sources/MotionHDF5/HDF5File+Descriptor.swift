// The file descriptor under an open HDF5 file, and keeping it out of child processes.
import CHDF5
import Foundation
import MotionCore

/// The POSIX descriptor of an open file when its driver is sec2 (the default), else `nil`.
///
/// For sec2, `H5Fget_vfd_handle` stores a pointer to the driver's `int fd` in its out-parameter,
/// not the descriptor itself (other drivers hand back other things: the core driver a pointer
/// to its memory buffer), so the driver is checked first. Call under the HDF5 lock. The
/// corresponding C functions are `H5Fget_access_plist`, `H5Pget_driver` and `H5Fget_vfd_handle`.
func _posixDescriptor(_ fileID: hid_t, action: String, path: String, status: ExitStatus) throws -> Int32? {
    let fapl = H5Fget_access_plist(fileID)
    guard fapl >= 0 else { throw HDF5Error.fromLibrary(status, action, path: path) }
    defer { H5Pclose(fapl) }
    let driver = H5Pget_driver(fapl)
    guard driver >= 0 else { throw HDF5Error.fromLibrary(status, action, path: path) }
    guard driver == CHDF5_H5FD_SEC2() else { return nil }
    var handle: UnsafeMutableRawPointer?
    guard H5Fget_vfd_handle(fileID, fapl, &handle) >= 0, let handle else {
        throw HDF5Error.fromLibrary(status, action, path: path)
    }
    return handle.load(as: Int32.self)
}

/// Marks the descriptor of a just created or opened file close-on-exec (`FD_CLOEXEC`).
///
/// libhdf5 opens files without `O_CLOEXEC` and `flock()`s them (shared for reading, exclusive
/// for writing). A child process started while the file is open would inherit the descriptor
/// and, because a `flock` belongs to the open file description, keep the lock after
/// `H5Fclose` for as long as it runs: the next `H5Fcreate` of that path then fails with
/// "unable to lock file, errno = 11". Foundation's `Process` closes the descriptors it sees when
/// it prepares a spawn, but not one opened by another thread in the meantime; `system()`,
/// `fork`/`exec` and `posix_spawn` without file actions close none.
///
/// Not atomic: a child forked by another thread between libhdf5's `open()` and this call still
/// inherits the descriptor (HDF5 1.10's sec2 driver offers no way to pass `O_CLOEXEC`).
/// Drivers other than sec2 are left alone. Call under the HDF5 lock.
///
/// - Throws: ``HDF5Error`` with `status` when the descriptor cannot be found or changed.
func _setCloseOnExec(_ fileID: hid_t, action: String, path: String, status: ExitStatus) throws {
    guard let fd = try _posixDescriptor(fileID, action: action, path: path, status: status) else { return }
    let flags = fcntl(fd, F_GETFD)
    guard flags >= 0, fcntl(fd, F_SETFD, flags | FD_CLOEXEC) >= 0 else {
        throw HDF5Error(status, action, path: path, reason: "cannot mark the file close-on-exec: \(String(cString: strerror(errno)))")
    }
}

/// A new anonymous file in memory (`memfd_create(…, MFD_CLOEXEC)`), or `nil` when the C library
/// lacks it. Looked up with `dlsym` because Glibc's Swift overlay hides `_GNU_SOURCE`
/// declarations. Used by `HDF5File.discard()` as a place where a dropped file's last writes go.
func _memoryFile() -> Int32? {
    typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
    guard let symbol = dlsym(nil, "memfd_create") else { return nil }
    let memfdCreate = unsafeBitCast(symbol, to: MemfdCreate.self)
    let mfdCloexec: UInt32 = 1  // MFD_CLOEXEC, <linux/memfd.h>
    let fd = memfdCreate("motionprep-discarded-hdf5", mfdCloexec)
    return fd >= 0 ? fd : nil
}
