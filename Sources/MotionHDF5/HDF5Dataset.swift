import CHDF5
import MotionCore

/// An open dataset in an ``HDF5File``: rows along dimension 0, each of a fixed `rowShape`.
///
/// Get one from ``HDF5File/createDataset(_:type:rowShape:chunkRows:)`` or
/// ``HDF5File/openDataset(_:)``. It keeps its file alive and is closed when the file is closed,
/// when ``close()`` is called, or in `deinit`. Thread safety is as for ``HDF5File``: every call
/// takes the process-wide HDF5 lock.
public final class HDF5Dataset: @unchecked Sendable {
    /// The dataset's name at the root of the file.
    public let name: String
    /// The file the dataset belongs to.
    public let file: HDF5File
    /// The shape of one row (the dataset's shape without dimension 0), e.g. `[128, 7]`.
    public let rowShape: [Int]

    /// The `H5Dcreate2`/`H5Dopen2` id; negative once closed. Guarded by the HDF5 lock.
    var datasetID: hid_t
    /// The file's element type, or `nil` when it is none of the four (see ``elementType``).
    let storedElementType: HDF5ElementType?
    /// Elements per row: the product of `rowShape`.
    let elementsPerRow: Int

    init(file: HDF5File, name: String, datasetID: hid_t, rowShape: [Int], elementType: HDF5ElementType?) {
        self.file = file
        self.name = name
        self.datasetID = datasetID
        self.rowShape = rowShape
        self.storedElementType = elementType
        self.elementsPerRow = rowShape.reduce(1, *)
    }

    deinit {
        HDF5Library.withLock { _ = closeLocked() }
    }

    /// Closes the dataset (`H5Dclose`), flushing its cached chunks. Calling it again does nothing;
    /// using the dataset afterwards throws.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when flushing fails.
    public func close() throws {
        try HDF5Library.withLock {
            if let error = closeLocked() { throw error }
        }
    }

    /// Closes the dataset id if open; returns the failure, if any. Call under the lock.
    func closeLocked() -> HDF5Error? {
        guard datasetID >= 0 else { return nil }
        defer { datasetID = -1 }
        guard H5Dclose(datasetID) >= 0 else {
            return HDF5Error.fromLibrary(.ioError, "cannot close dataset `\(name)` in", path: file.path, objectName: name)
        }
        return nil
    }

    // MARK: Metadata

    /// The current shape, `[rows] + rowShape`.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails.
    public var shape: [Int] {
        get throws {
            try HDF5Library.withLock {
                let action = "cannot read the shape of dataset `\(name)` in"
                let id = try openID(action: action)
                return try _datasetDims(id, action: action, path: file.path, objectName: name).map { Int($0) }
            }
        }
    }

    /// The names of the dataset's own attributes, sorted by their UTF-8 bytes (motionprep
    /// writes none; `validate` reports any it finds).
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails. The
    ///   corresponding C function is `H5Aiterate2`.
    public func attributeNames() throws -> [String] {
        try HDF5Library.withLock {
            let action = "cannot list the attributes of dataset `\(name)` in"
            let id = try openID(action: action)
            final class Collector { var names: [String] = [] }
            let collector = Collector()
            var index: hsize_t = 0
            let status = withExtendedLifetime(collector) {
                H5Aiterate2(id, H5_INDEX_NAME, H5_ITER_INC, &index, { _, name, _, context in
                    guard let name, let context else { return -1 }
                    Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().names.append(String(cString: name))
                    return 0
                }, Unmanaged.passUnretained(collector).toOpaque())
            }
            guard status >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name) }
            return collector.names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    /// The number of rows (dimension 0 of ``shape``).
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails.
    public var rowCount: Int {
        get throws { try shape[0] }
    }

    /// The element type stored in the file, or `nil` when it is none of the four little-endian
    /// types (e.g. a big-endian float or an unsigned integer written by another tool; the typed
    /// `read…` methods still convert such data).
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed.
    public var elementType: HDF5ElementType? {
        get throws {
            try HDF5Library.withLock {
                _ = try openID(action: "cannot read the type of dataset `\(name)` in")
                return storedElementType
            }
        }
    }

    // MARK: Appending

    /// Appends `rows` rows given as raw native-endian bytes of the dataset's element type,
    /// growing dimension 0 (`H5Dset_extent`, then `H5Dwrite` into the new hyperslab).
    ///
    /// Appending 0 rows does nothing. If the write fails the extent is shrunk back.
    ///
    /// Reproducibility: the same sequence of calls (datasets, order, batch sizes) writes the same
    /// bytes. Splitting the same rows into different batches gives the same content but may lay
    /// the file out differently (HDF5 allocates chunks as its chunk cache evicts them), so a
    /// writer that must be byte-identical across runs has to batch the same way each time.
    ///
    /// - Parameters:
    ///   - values: `rows × product(rowShape)` elements of ``elementType``, row-major; the byte
    ///     count must match exactly (a mismatch is a programmer error and traps).
    ///   - rows: the number of rows, at least 0.
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed, its file type is none of
    ///   the four, or HDF5 fails (read-only file, disk full).
    public func append(_ values: UnsafeRawBufferPointer, rows: Int) throws {
        try HDF5Library.withLock {
            let action = "cannot append to dataset `\(name)` in"
            _ = try openID(action: action)
            guard let type = storedElementType else {
                throw HDF5Error(.ioError, action, path: file.path, objectName: name,
                                reason: "its element type is none of float32, float64, int32, int64; append typed values instead")
            }
            try appendLocked(values, rows: rows, type: type)
        }
    }

    /// Appends `rows` rows of `Float` (`values.count == rows × product(rowShape)`, else a trap);
    /// HDF5 converts to the dataset's element type if it differs.
    public func append(_ values: [Float], rows: Int) throws { try appendTyped(values, rows: rows) }
    /// Appends `rows` rows of `Double`; HDF5 converts to the dataset's element type if it differs.
    public func append(_ values: [Double], rows: Int) throws { try appendTyped(values, rows: rows) }
    /// Appends `rows` rows of `Int32`; HDF5 converts to the dataset's element type if it differs.
    public func append(_ values: [Int32], rows: Int) throws { try appendTyped(values, rows: rows) }
    /// Appends `rows` rows of `Int64`; HDF5 converts to the dataset's element type if it differs.
    public func append(_ values: [Int64], rows: Int) throws { try appendTyped(values, rows: rows) }

    private func appendTyped<Element: _HDF5Element>(_ values: [Element], rows: Int) throws {
        precondition(rows >= 0, "rows must not be negative, got \(rows)")
        precondition(values.count == rows * elementsPerRow,
                     "appending \(rows) rows of \(rowShape) to `\(name)` needs \(rows * elementsPerRow) values, got \(values.count)")
        try values.withUnsafeBytes { bytes in
            try HDF5Library.withLock {
                _ = try openID(action: "cannot append to dataset `\(name)` in")
                try appendLocked(bytes, rows: rows, type: Element.hdf5ElementType)
            }
        }
    }

    /// Extends dimension 0 by `rows` and writes `values` (native `type`) into the new rows.
    private func appendLocked(_ values: UnsafeRawBufferPointer, rows: Int, type: HDF5ElementType) throws {
        precondition(rows >= 0, "rows must not be negative, got \(rows)")
        precondition(values.count == rows * elementsPerRow * type.byteCount,
                     "appending \(rows) rows of \(rowShape) \(type) to `\(name)` needs \(rows * elementsPerRow * type.byteCount) bytes, got \(values.count)")
        guard rows > 0 else { return }
        let action = "cannot append to dataset `\(name)` in"
        let id = datasetID
        let old = try _datasetDims(id, action: action, path: file.path, objectName: name)
        var new = old
        new[0] += hsize_t(rows)
        guard H5Dset_extent(id, new) >= 0 else {
            throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name)
        }
        do {
            try writeLocked(values, firstRow: old[0], rows: hsize_t(rows), memoryType: type.nativeType, action: action)
        } catch {
            _ = H5Dset_extent(id, old)   // best effort: don't leave rows of fill values behind
            throw error
        }
    }

    /// Writes `rows` rows starting at `firstRow` from `values` (in `memoryType`).
    private func writeLocked(_ values: UnsafeRawBufferPointer, firstRow: hsize_t, rows: hsize_t,
                             memoryType: hid_t, action: String) throws {
        let (fileSpace, memorySpace) = try selectRows(firstRow: firstRow, rows: rows, action: action, status: .ioError)
        defer { H5Sclose(fileSpace); H5Sclose(memorySpace) }
        guard H5Dwrite(datasetID, memoryType, memorySpace, fileSpace, CHDF5_H5P_DEFAULT(), values.baseAddress) >= 0 else {
            throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name)
        }
    }

    /// A file dataspace with rows `[firstRow, firstRow + rows)` selected, and a matching memory
    /// dataspace. The caller closes both.
    private func selectRows(firstRow: hsize_t, rows: hsize_t, action: String,
                            status: ExitStatus) throws -> (file: hid_t, memory: hid_t) {
        let fileSpace = H5Dget_space(datasetID)
        guard fileSpace >= 0 else { throw HDF5Error.fromLibrary(status, action, path: file.path, objectName: name) }
        let start = [firstRow] + rowShape.map { _ in hsize_t(0) }
        let count = [rows] + rowShape.map { hsize_t($0) }
        guard H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, start, nil, count, nil) >= 0 else {
            let error = HDF5Error.fromLibrary(status, action, path: file.path, objectName: name)
            H5Sclose(fileSpace)
            throw error
        }
        let memorySpace = H5Screate_simple(Int32(count.count), count, nil)
        guard memorySpace >= 0 else {
            let error = HDF5Error.fromLibrary(status, action, path: file.path, objectName: name)
            H5Sclose(fileSpace)
            throw error
        }
        return (fileSpace, memorySpace)
    }

    // MARK: Reading

    /// Reads rows `[start, start + count)` as `Float`, row-major (`H5Dread` with
    /// `H5T_NATIVE_FLOAT`; HDF5 converts from the stored type if it differs).
    ///
    /// - Parameters:
    ///   - start: the first row, at least 0.
    ///   - count: the number of rows, at least 0; 0 gives an empty array.
    /// - Returns: `count × product(rowShape)` values.
    /// - Throws: ``HDF5Error``: `.dataError` when the rows are not all inside the dataset,
    ///   `.ioError` when the dataset is closed or reading fails (including a Fletcher-32 mismatch).
    public func readFloats(start: Int, count: Int) throws -> [Float] { try readTyped(start: start, count: count) }
    /// Reads rows `[start, start + count)` as `Double`; see ``readFloats(start:count:)``.
    public func readDoubles(start: Int, count: Int) throws -> [Double] { try readTyped(start: start, count: count) }
    /// Reads rows `[start, start + count)` as `Int32`; see ``readFloats(start:count:)``.
    public func readInt32s(start: Int, count: Int) throws -> [Int32] { try readTyped(start: start, count: count) }
    /// Reads rows `[start, start + count)` as `Int64`; see ``readFloats(start:count:)``.
    public func readInt64s(start: Int, count: Int) throws -> [Int64] { try readTyped(start: start, count: count) }

    private func readTyped<Element: _HDF5Element>(start: Int, count: Int) throws -> [Element] {
        precondition(start >= 0 && count >= 0, "row range must not be negative, got start \(start), count \(count)")
        return try HDF5Library.withLock {
            let action = "cannot read rows \(start)..<\(start + count) of dataset `\(name)` in"
            let id = try openID(action: action)
            let rows = try _datasetDims(id, action: action, path: file.path, objectName: name)[0]
            guard start + count <= Int(rows) else {
                throw HDF5Error(.dataError, action, path: file.path, objectName: name,
                                reason: "the dataset has only \(rows) rows")
            }
            let total = count * elementsPerRow
            guard total > 0 else { return [] }
            let (fileSpace, memorySpace) = try selectRows(firstRow: hsize_t(start), rows: hsize_t(count),
                                                          action: action, status: .ioError)
            defer { H5Sclose(fileSpace); H5Sclose(memorySpace) }
            return try [Element](unsafeUninitializedCapacity: total) { buffer, initialized in
                guard H5Dread(id, Element.hdf5ElementType.nativeType, memorySpace, fileSpace,
                              CHDF5_H5P_DEFAULT(), buffer.baseAddress) >= 0 else {
                    throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name)
                }
                initialized = total
            }
        }
    }

    // MARK: Internals (call under the lock)

    /// The dataset id, or an error if the dataset or its file has been closed.
    func openID(action: String, status: ExitStatus = .ioError) throws -> hid_t {
        guard datasetID >= 0, file.fileID >= 0 else {
            throw HDF5Error(status, action, path: file.path, objectName: name, reason: "the dataset has been closed")
        }
        return datasetID
    }
}
