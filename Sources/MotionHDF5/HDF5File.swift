// MotionHDF5: a small Swift wrapper over libhdf5 (Debian's 1.10 serial build) for what
// motionprep writes and `validate` reads (docs/dataset-format.md, "HDF5 files"; docs/validate.md): files with chunked, extendible numeric
// datasets at the root and root attributes. It leaves out groups, compound types, references,
// parallel HDF5 and anything else motionprep does not write.
import CHDF5
import MotionCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An open HDF5 file.
///
/// Create one with ``create(path:)`` (for writing) or ``openReadOnly(path:)``; call ``close()``
/// when done (`deinit` closes too, ignoring errors — call `close()` to see them, since closing
/// flushes data). Datasets opened or created through the file keep it alive; closing the file
/// closes them.
///
/// Thread safety: every HDF5 call, and every change to this object's state, happens under one
/// process-wide lock (`HDF5Library`), so a file may be used from several Dispatch queues. Calls
/// are serialised, not parallel: parallelise computing, not writing.
public final class HDF5File: @unchecked Sendable {
    /// The path the file was created or opened with.
    public let path: String
    /// Whether the file was opened for writing.
    public let isWritable: Bool

    /// The `H5Fcreate`/`H5Fopen` id; negative once closed. Guarded by the HDF5 lock.
    var fileID: hid_t
    /// Datasets handed out and possibly still open, so `close()` can close them first
    /// (file close degree SEMI refuses to close a file with open objects). Guarded by the HDF5 lock.
    private var datasets: [_WeakDataset] = []
    /// Whether the file's descriptor has been pointed away from the file (``discard()``).
    /// Guarded by the HDF5 lock.
    private var isDetached = false

    private init(path: String, fileID: hid_t, isWritable: Bool) {
        self.path = path
        self.fileID = fileID
        self.isWritable = isWritable
    }

    deinit {
        HDF5Library.withLock { _ = closeLocked() }
    }

    // MARK: Opening

    /// Creates a file for writing, truncating any existing file at `path`.
    ///
    /// The file is made reproducible and readable by h5py: library version bounds low = high =
    /// 1.8 (`H5Pset_libver_bounds(…, H5F_LIBVER_V18, H5F_LIBVER_V18)`, which also allows attributes
    /// larger than 64 KiB), object time tracking off (`H5Pset_obj_track_times`, so the same content
    /// gives the same bytes), and file close degree SEMI (`H5Pset_fclose_degree`). File locking
    /// is used where the file system supports it and skipped where it does not (NFS, Lustre:
    /// `H5Pset_file_locking(…, true, true)`); `HDF5_USE_FILE_LOCKING=FALSE` still turns it off.
    /// The descriptor is marked close-on-exec, so child processes do not inherit the file's lock.
    ///
    /// - Parameters:
    ///   - path: where to create the file; its directory must exist.
    ///   - shown: the path messages and ``path`` give, when `path` is one the user would not
    ///     recognise (`/proc/self/fd/N/train.h5`, a file created through a folder's descriptor).
    ///     Nothing written into the file depends on either.
    /// - Returns: the open file.
    /// - Throws: ``HDF5Error`` with `.cannotCreate` when the file cannot be created (no such
    ///   directory, no permission, the file is already open in this process…). The corresponding C
    ///   function is `H5Fcreate`.
    public static func create(path: String, shownAs shown: String? = nil) throws -> HDF5File {
        let opened = path
        let path = shown ?? path
        return try HDF5Library.withLock {
            let action = "cannot create"
            let fcpl = try _createPropertyList(CHDF5_H5P_FILE_CREATE(), action, path: path)
            defer { H5Pclose(fcpl) }
            let fapl = try _createPropertyList(CHDF5_H5P_FILE_ACCESS(), action, path: path)
            defer { H5Pclose(fapl) }
            guard H5Pset_obj_track_times(fcpl, false) >= 0,
                  H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0,
                  H5Pset_fclose_degree(fapl, H5F_CLOSE_SEMI) >= 0,
                  H5Pset_file_locking(fapl, true, true) >= 0
            else { throw HDF5Error.fromLibrary(.cannotCreate, action, path: path) }

            let fileID = H5Fcreate(opened, CHDF5_H5F_ACC_TRUNC(), fcpl, fapl)
            guard fileID >= 0 else { throw HDF5Error.fromLibrary(.cannotCreate, action, path: path) }
            do {
                try _setCloseOnExec(fileID, action: action, path: path, status: .cannotCreate)
            } catch {
                H5Fclose(fileID)
                throw error
            }
            return HDF5File(path: path, fileID: fileID, isWritable: true)
        }
    }

    /// Opens an existing file for reading, with a shared file lock where the file system
    /// supports it; the descriptor is marked close-on-exec, as in ``create(path:)``.
    ///
    /// - Parameter path: the file to open.
    /// - Returns: the open file.
    /// - Throws: ``HDF5Error`` with `.noInput` when nothing exists at `path`, `.dataError` when a
    ///   readable file exists but HDF5 cannot open it (not an HDF5 file, truncated, corrupt), and
    ///   `.ioError` otherwise (no permission, a directory). The corresponding C function is `H5Fopen`.
    public static func openReadOnly(path: String) throws -> HDF5File {
        // HDF5 opens the path itself, blocking: a FIFO (device, socket) is refused first, with a
        // non-blocking open and fstat (docs/hardening.md, "Data safety: FIFOs and special files").
        switch RegularFile.openForReading(path) {
        case .success(let fd): _ = Glibc.close(fd)
        case .failure(.notRegular(let kind)):
            throw HDF5Error(.noInput, "cannot open", path: path, reason: RegularFile.notRegularReason(kind))
        case .failure: break
        }
        return try HDF5Library.withLock {
            let action = "cannot open"
            let fapl = try _createPropertyList(CHDF5_H5P_FILE_ACCESS(), action, path: path)
            defer { H5Pclose(fapl) }
            guard H5Pset_fclose_degree(fapl, H5F_CLOSE_SEMI) >= 0,
                  H5Pset_file_locking(fapl, true, true) >= 0
            else {
                throw HDF5Error.fromLibrary(.ioError, action, path: path)
            }
            let fileID = H5Fopen(path, CHDF5_H5F_ACC_RDONLY(), fapl)
            guard fileID >= 0 else {
                let summary = HDF5Library.errorSummary()
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                let status: ExitStatus
                let reason: String
                if !exists {
                    (status, reason) = (.noInput, "no such file")
                } else if !isDirectory.boolValue && FileManager.default.isReadableFile(atPath: path) {
                    (status, reason) = (.dataError, "not a readable HDF5 file: \(summary)")
                } else {
                    (status, reason) = (.ioError, isDirectory.boolValue ? "it is a directory" : summary)
                }
                throw HDF5Error(status, action, path: path, reason: reason, libraryDetail: summary)
            }
            do {
                try _setCloseOnExec(fileID, action: action, path: path, status: .ioError)
            } catch {
                H5Fclose(fileID)
                throw error
            }
            return HDF5File(path: path, fileID: fileID, isWritable: false)
        }
    }

    /// Closes every dataset opened through this file, then the file (`H5Dclose`, `H5Fclose`).
    /// Closing flushes buffered chunks, so write errors can surface here. Calling it again does
    /// nothing; using the file or its datasets afterwards throws.
    ///
    /// A file open for writing is flushed first (`H5Fflush`). When that fails (a full disk, or an
    /// earlier write failed and left data HDF5 still has to write), the file's content is lost
    /// anyway, and HDF5 1.10 cannot survive a failed close: `H5Fclose` frees the file but keeps
    /// its id, and libhdf5's clean-up then crashes (HDFFV-11052, CVE-2020-10812, fixed in 1.14.1).
    /// So the rest of the close goes to a scratch descriptor (see ``discard()``) and succeeds,
    /// and the flush's error is thrown.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) for the first flush or close that failed, naming
    ///   the file and the system's reason (e.g. "file write failed: No space left on device");
    ///   the file counts as closed either way.
    public func close() throws {
        try HDF5Library.withLock {
            if let error = closeLocked() { throw error }
        }
    }

    /// Closes the file without writing what HDF5 still holds for it: for a file that is being
    /// given up after a failure and is about to be deleted. Never fails and never touches the
    /// file's disk again: the descriptor under the file is first pointed at an anonymous memory
    /// file (`memfd_create`, `dup2`), so whatever HDF5 writes while closing goes nowhere, and
    /// its close cannot fail on a full disk. Calling it on a closed file does nothing.
    public func discard() {
        HDF5Library.withLock {
            guard fileID >= 0 else { return }
            if isWritable { _ = detachDescriptorLocked() }
            _ = closeLocked()
        }
    }

    /// Closes datasets then the file; returns the first failure. Call under the lock.
    private func closeLocked() -> HDF5Error? {
        guard fileID >= 0 else { return nil }
        var firstError: HDF5Error?
        // Flush first, while every dataset is still open: a failure here is the file's write
        // error, and the close that follows must not meet it again (see `close()`).
        if isWritable && !isDetached && H5Fflush(fileID, H5F_SCOPE_LOCAL) < 0 {
            firstError = HDF5Error.fromLibrary(.ioError, "cannot write", path: path)
            _ = detachDescriptorLocked()
        }
        for box in datasets {
            if let dataset = box.dataset, let error = dataset.closeLocked(), firstError == nil {
                firstError = error
            }
        }
        datasets.removeAll()
        if H5Fclose(fileID) < 0, firstError == nil {
            firstError = HDF5Error.fromLibrary(.ioError, "cannot close", path: path)
        }
        fileID = -1
        return firstError
    }

    /// Points the sec2 descriptor under the file at a fresh anonymous memory file, so HDF5's
    /// remaining writes (and its truncate at close) succeed without reaching the disk, and the
    /// real file is no longer open (nor locked). Call under the lock.
    ///
    /// - Returns: whether the descriptor was replaced (false for other drivers, or when the C
    ///   library lacks `memfd_create`).
    private func detachDescriptorLocked() -> Bool {
        if isDetached { return true }
        guard let fd = try? _posixDescriptor(fileID, action: "cannot discard", path: path, status: .ioError),
              let scratch = _memoryFile() else { return false }
        defer { Glibc.close(scratch) }
        guard dup2(scratch, fd) >= 0 else { return false }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        isDetached = true
        return true
    }

    // MARK: Datasets

    /// motionprep's deflate level unless `output.deflate_level` sets another (docs/dataset-format.md, "HDF5 files").
    public static let defaultDeflateLevel = 4

    /// Creates an extendible, chunked, compressed dataset at the root, with no rows yet.
    ///
    /// Shape `[0] + rowShape`, maximum shape `[unlimited] + rowShape`, chunk shape
    /// `[chunkRows] + rowShape`, and the filters shuffle, deflate (level `deflateLevel`, 4 by
    /// default) and Fletcher-32 in that order (h5py's `shuffle=True, compression=4,
    /// fletcher32=True`). Object time tracking is off.
    ///
    /// - Parameters:
    ///   - name: the dataset's name at the root, e.g. "x"; must not exist yet.
    ///   - type: the element type.
    ///   - rowShape: the shape of one row, e.g. `[128, 7]` for `x`, `[]` for 1-D datasets. Every
    ///     extent must be at least 1 (HDF5 chunks cannot be empty).
    ///   - chunkRows: rows per chunk, at least 1 (docs/dataset-format.md, "HDF5 files": about 64 KiB per chunk of `x`, 4096
    ///     for 1-D datasets; the caller decides).
    /// - Returns: the open dataset.
    /// - Throws: ``HDF5Error`` with `.cannotCreate` (name taken, a zero extent, file read-only or
    ///   closed). The corresponding C function is `H5Dcreate2`.
    public func createDataset(_ name: String, type: HDF5ElementType, rowShape: [Int],
                              chunkRows: Int, deflateLevel: Int = HDF5File.defaultDeflateLevel) throws -> HDF5Dataset {
        precondition((1...9).contains(deflateLevel), "deflateLevel must be 1 to 9, got \(deflateLevel)")
        precondition(chunkRows > 0, "chunkRows must be positive, got \(chunkRows)")
        precondition(rowShape.allSatisfy { $0 >= 0 }, "rowShape must not be negative, got \(rowShape)")
        return try HDF5Library.withLock {
            let action = "cannot create dataset `\(name)` in"
            let fileID = try openFileID(action: action, status: .cannotCreate, objectName: name)
            if let zero = rowShape.firstIndex(of: 0) {
                throw HDF5Error(.cannotCreate, action, path: path, objectName: name,
                                reason: "row extent \(zero + 1) of \(rowShape) is 0, and HDF5 chunks cannot be empty")
            }
            let dims = [hsize_t(0)] + rowShape.map { hsize_t($0) }
            let maxDims = [CHDF5_H5S_UNLIMITED()] + rowShape.map { hsize_t($0) }
            let chunk = [hsize_t(chunkRows)] + rowShape.map { hsize_t($0) }
            let rank = Int32(dims.count)

            let space = H5Screate_simple(rank, dims, maxDims)
            guard space >= 0 else { throw HDF5Error.fromLibrary(.cannotCreate, action, path: path, objectName: name) }
            defer { H5Sclose(space) }
            let dcpl = try _createPropertyList(CHDF5_H5P_DATASET_CREATE(), action, path: path, objectName: name)
            defer { H5Pclose(dcpl) }
            guard H5Pset_chunk(dcpl, rank, chunk) >= 0,
                  H5Pset_shuffle(dcpl) >= 0,
                  H5Pset_deflate(dcpl, UInt32(deflateLevel)) >= 0,
                  H5Pset_fletcher32(dcpl) >= 0,
                  H5Pset_obj_track_times(dcpl, false) >= 0
            else { throw HDF5Error.fromLibrary(.cannotCreate, action, path: path, objectName: name) }
            let lcpl = try _utf8LinkCreationList(action, path: path, objectName: name)
            defer { H5Pclose(lcpl) }

            let datasetID = H5Dcreate2(fileID, name, type.fileType, space, lcpl, dcpl, CHDF5_H5P_DEFAULT())
            guard datasetID >= 0 else {
                throw HDF5Error.fromLibrary(.cannotCreate, action, path: path, objectName: name)
            }
            return register(HDF5Dataset(file: self, name: name, datasetID: datasetID,
                                        rowShape: rowShape, elementType: type))
        }
    }

    /// Opens an existing dataset at the root.
    ///
    /// - Parameter name: the dataset's name, e.g. "x".
    /// - Returns: the open dataset.
    /// - Throws: ``HDF5Error`` with `.dataError` when there is no such dataset (or it is not a
    ///   simple, at least 1-D dataset), `.ioError` when the file is closed or HDF5 fails. The
    ///   corresponding C function is `H5Dopen2`.
    public func openDataset(_ name: String) throws -> HDF5Dataset {
        try HDF5Library.withLock {
            let action = "cannot open dataset `\(name)` in"
            let fileID = try openFileID(action: action, status: .ioError, objectName: name)
            guard try _objectType(fileID, name, action: action, path: path) == H5O_TYPE_DATASET else {
                throw HDF5Error(.dataError, action, path: path, objectName: name, reason: "there is no such dataset")
            }
            let datasetID = H5Dopen2(fileID, name, CHDF5_H5P_DEFAULT())
            guard datasetID >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
            var keep = false
            defer { if !keep { H5Dclose(datasetID) } }

            let dims = try _datasetDims(datasetID, action: action, path: path, objectName: name)
            guard !dims.isEmpty else {
                throw HDF5Error(.dataError, action, path: path, objectName: name,
                                reason: "it is a scalar; MotionHDF5 reads only datasets with at least one dimension")
            }
            let typeID = H5Dget_type(datasetID)
            guard typeID >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
            defer { H5Tclose(typeID) }
            let elementType = HDF5ElementType(hdf5Type: typeID)
            keep = true
            return register(HDF5Dataset(file: self, name: name, datasetID: datasetID,
                                        rowShape: dims.dropFirst().map { Int($0) }, elementType: elementType))
        }
    }

    /// The names of the datasets at the root, sorted by their UTF-8 bytes (groups and other
    /// objects are left out).
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the file is closed or HDF5 fails. The
    ///   corresponding C function is `H5Literate`.
    public func datasetNames() throws -> [String] {
        try HDF5Library.withLock {
            let action = "cannot list the datasets of"
            let fileID = try openFileID(action: action, status: .ioError)
            final class Collector { var names: [String] = [] }
            let collector = Collector()
            var index: hsize_t = 0
            let status = withExtendedLifetime(collector) {
                H5Literate(fileID, H5_INDEX_NAME, H5_ITER_INC, &index, { _, name, _, context in
                    guard let name, let context else { return -1 }
                    Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().names.append(String(cString: name))
                    return 0
                }, Unmanaged.passUnretained(collector).toOpaque())
            }
            guard status >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path) }
            return try collector.names
                .filter { try _objectType(fileID, $0, action: action, path: path) == H5O_TYPE_DATASET }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    // MARK: Internals (call under the lock)

    /// The file id, or an error if the file has been closed.
    func openFileID(action: String, status: ExitStatus, objectName: String? = nil) throws -> hid_t {
        guard fileID >= 0 else {
            throw HDF5Error(status, action, path: path, objectName: objectName, reason: "the file has been closed")
        }
        return fileID
    }

    private func register(_ dataset: HDF5Dataset) -> HDF5Dataset {
        datasets.removeAll { $0.dataset == nil }
        datasets.append(_WeakDataset(dataset: dataset))
        return dataset
    }
}

/// A weak reference to a dataset handed out by a file.
private struct _WeakDataset {
    weak var dataset: HDF5Dataset?
}
