import CHDF5
import MotionCore

/// Storage layout: chunking, filters, resizing and direct chunk writes.
extension HDF5Dataset {
    /// Rows per chunk, or `nil` when the dataset is not chunked (contiguous or compact).
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails. The
    ///   corresponding C functions are `H5Pget_layout` and `H5Pget_chunk`.
    public var chunkRows: Int? {
        get throws { try chunkShape?.first }
    }

    /// The chunk shape (`[chunkRows] + rowShape` for datasets this module creates), or `nil`
    /// when the dataset is not chunked.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails.
    public var chunkShape: [Int]? {
        get throws {
            try HDF5Library.withLock {
                let action = "cannot read the chunk shape of dataset `\(name)` in"
                let id = try openID(action: action)
                return try _chunkShape(id, rank: rowShape.count + 1, action: action, path: file.path, objectName: name)
            }
        }
    }

    /// The dataset's filter pipeline in order, by name: "shuffle", "deflate", "fletcher32",
    /// "szip", "nbit", "scaleoffset", or "filter-N" for other filter ids N (e.g. "filter-32015"
    /// for zstd). Datasets this module creates give `["shuffle", "deflate", "fletcher32"]`.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails. The
    ///   corresponding C functions are `H5Pget_nfilters` and `H5Pget_filter2`.
    public var filters: [String] {
        get throws { try filterPipeline.map(\.name) }
    }

    /// The deflate (gzip) level, or `nil` when the dataset has no deflate filter.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails.
    public var deflateLevel: Int? {
        get throws {
            try filterPipeline.first { $0.name == "deflate" }?.parameters.first.map { Int($0) }
        }
    }

    /// The filter pipeline in order (first applied when writing first), with each stage's
    /// client parameters: what a reader of raw chunks (``readStoredChunk(offsetRow:into:)``)
    /// must undo, last stage first. Empty for an unfiltered dataset.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails. The
    ///   corresponding C functions are `H5Pget_nfilters` and `H5Pget_filter2`.
    public var filterStages: [HDF5Filter] {
        get throws { try filterPipeline }
    }

    var filterPipeline: [HDF5Filter] {
        get throws {
            try withCreationPropertyList(action: "cannot read the filters of dataset `\(name)` in") { dcpl, action in
                let count = H5Pget_nfilters(dcpl)
                guard count >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name) }
                return try (0..<UInt32(count)).map { index in
                    var flags: UInt32 = 0
                    var parameterCount = 16
                    var parameters = [UInt32](repeating: 0, count: parameterCount)
                    var filterName = [CChar](repeating: 0, count: 64)
                    var configuration: UInt32 = 0
                    let id = H5Pget_filter2(dcpl, index, &flags, &parameterCount, &parameters,
                                            filterName.count, &filterName, &configuration)
                    guard id >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name) }
                    let name = switch id {
                    case H5Z_FILTER_SHUFFLE: "shuffle"
                    case H5Z_FILTER_DEFLATE: "deflate"
                    case H5Z_FILTER_FLETCHER32: "fletcher32"
                    case H5Z_FILTER_SZIP: "szip"
                    case H5Z_FILTER_NBIT: "nbit"
                    case H5Z_FILTER_SCALEOFFSET: "scaleoffset"
                    default: "filter-\(id)"
                    }
                    return HDF5Filter(id: Int(id), name: name, parameters: Array(parameters.prefix(min(parameterCount, 16))),
                                      optional: flags & UInt32(H5Z_FLAG_OPTIONAL) != 0)
                }
            }
        }
    }

    /// Sets the number of rows (`H5Dset_extent`), growing with fill values (zeros) or shrinking.
    /// Use it before ``writeRawChunk(offsetRow:filterMask:bytes:)`` to make room for the rows a
    /// chunk holds; a final partial chunk is written whole and the extent says how much is valid.
    ///
    /// - Parameter rows: the new row count, at least 0.
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed, read-only, or HDF5 fails.
    public func resize(rows: Int) throws {
        precondition(rows >= 0, "rows must not be negative, got \(rows)")
        try HDF5Library.withLock {
            let action = "cannot resize dataset `\(name)` in"
            let id = try openID(action: action)
            var dims = try _datasetDims(id, action: action, path: file.path, objectName: name)
            dims[0] = hsize_t(rows)
            guard H5Dset_extent(id, dims) >= 0 else {
                throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name)
            }
        }
    }

    /// Writes one already-filtered chunk straight to the file, bypassing HDF5's filter pipeline
    /// and chunk cache (`H5Dwrite_chunk`, HDF5 ≥ 1.10.3; `H5DOwrite_chunk` in the high-level
    /// library is the older name). Lets callers compress chunks in parallel.
    ///
    /// The bytes must be exactly what the pipeline would produce for a whole chunk
    /// (`chunkRows × product(rowShape)` elements, rows past the extent included), with the filters
    /// whose bits are set in `filterMask` skipped: bit 0 shuffle, bit 1 deflate, bit 2 fletcher32
    /// for datasets this module creates. `filterMask` 0 means every filter was applied; `0b111`
    /// means the chunk is stored raw. The chunk must lie inside the current extent (call
    /// ``resize(rows:)`` first).
    ///
    /// - Parameters:
    ///   - offsetRow: the chunk's first row; a multiple of ``chunkRows``.
    ///   - filterMask: the filters *not* applied, one bit per pipeline stage.
    ///   - bytes: the stored chunk; must not be empty.
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed, the chunk lies outside the
    ///   extent, or HDF5 fails.
    public func writeRawChunk(offsetRow: Int, filterMask: UInt32, bytes: UnsafeRawBufferPointer) throws {
        precondition(offsetRow >= 0, "offsetRow must not be negative, got \(offsetRow)")
        precondition(!bytes.isEmpty, "a raw chunk cannot be empty")
        try HDF5Library.withLock {
            let action = "cannot write the chunk at row \(offsetRow) of dataset `\(name)` in"
            let id = try openID(action: action)
            let offset = [hsize_t(offsetRow)] + rowShape.map { _ in hsize_t(0) }
            guard H5Dwrite_chunk(id, CHDF5_H5P_DEFAULT(), filterMask, offset, bytes.count, bytes.baseAddress) >= 0 else {
                throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name)
            }
        }
    }

    /// Writes one already-filtered chunk given as an array; the same as the overload taking an
    /// `UnsafeRawBufferPointer` (`H5Dwrite_chunk`), whose documentation applies.
    public func writeRawChunk(offsetRow: Int, filterMask: UInt32, bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeRawChunk(offsetRow: offsetRow, filterMask: filterMask, bytes: $0) }
    }

    /// Reads one chunk as stored in the file, still filtered (`H5Dget_chunk_storage_size`,
    /// `H5Dread_chunk`): with ``writeRawChunk(offsetRow:filterMask:bytes:)`` it copies chunks
    /// between datasets of the same layout without decompressing them.
    ///
    /// - Parameter offsetRow: the chunk's first row; a multiple of ``chunkRows``.
    /// - Returns: the filters skipped for this chunk (see `writeRawChunk`) and the stored bytes.
    /// - Throws: ``HDF5Error``: `.dataError` when the chunk lies outside the extent or was never
    ///   written, `.ioError` when the dataset is closed or reading fails.
    public func readRawChunk(offsetRow: Int) throws -> (filterMask: UInt32, bytes: [UInt8]) {
        var bytes: [UInt8] = []
        guard let mask = try readStoredChunk(offsetRow: offsetRow, into: &bytes) else {
            throw HDF5Error(.dataError, "cannot read the chunk at row \(offsetRow) of dataset `\(name)` in", path: file.path,
                            objectName: name, reason: "the chunk has not been written")
        }
        return (mask, bytes)
    }

    /// Reads one chunk as stored in the file, still filtered, into a caller's buffer
    /// (`H5Dget_chunk_info_by_coord`, `H5Dread_chunk`): the form of ``readRawChunk(offsetRow:)``
    /// for readers that decode chunks themselves, reusing one buffer per thread. Only the HDF5
    /// calls run under the HDF5 lock; callers decode on their own threads.
    ///
    /// - Parameters:
    ///   - offsetRow: the chunk's first row; a multiple of ``chunkRows`` inside the extent.
    ///   - buffer: resized to the chunk's stored size and filled with its bytes.
    /// - Returns: the filters skipped for this chunk (see
    ///   ``writeRawChunk(offsetRow:filterMask:bytes:)``), or `nil` when the chunk was never
    ///   written (reading it gives fill values; `buffer` is then left empty).
    /// - Throws: ``HDF5Error``: `.dataError` when `offsetRow` lies outside the extent, `.ioError`
    ///   when the dataset is closed or reading fails.
    public func readStoredChunk(offsetRow: Int, into buffer: inout [UInt8]) throws -> UInt32? {
        precondition(offsetRow >= 0, "offsetRow must not be negative, got \(offsetRow)")
        return try HDF5Library.withLock {
            let action = "cannot read the chunk at row \(offsetRow) of dataset `\(name)` in"
            let id = try openID(action: action)
            let rows = try _datasetDims(id, action: action, path: file.path, objectName: name)[0]
            guard offsetRow < Int(rows) else {
                throw HDF5Error(.dataError, action, path: file.path, objectName: name,
                                reason: "the dataset has only \(rows) rows")
            }
            let offset = [hsize_t(offsetRow)] + rowShape.map { _ in hsize_t(0) }
            // H5Dget_chunk_storage_size fails on a chunk never written (libhdf5 1.10); this one
            // gives it the undefined address instead.
            var size: hsize_t = 0
            var address: haddr_t = 0
            var storedMask: UInt32 = 0
            guard H5Dget_chunk_info_by_coord(id, offset, &storedMask, &address, &size) >= 0 else {
                throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name)
            }
            guard address != CHDF5_HADDR_UNDEF(), size > 0 else {
                buffer.removeAll(keepingCapacity: true)
                return nil
            }
            if buffer.count != Int(size) {
                buffer.removeAll(keepingCapacity: true)
                buffer.append(contentsOf: repeatElement(0, count: Int(size)))
            }
            var mask: UInt32 = 0
            let status = buffer.withUnsafeMutableBytes { H5Dread_chunk(id, CHDF5_H5P_DEFAULT(), offset, &mask, $0.baseAddress) }
            guard status >= 0 else {
                throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name)
            }
            return mask
        }
    }

    /// Runs `body` with the dataset creation property list (`H5Dget_create_plist`), closed after.
    private func withCreationPropertyList<Result>(
        action: String, _ body: (hid_t, String) throws -> Result
    ) throws -> Result {
        try HDF5Library.withLock {
            let id = try openID(action: action)
            let dcpl = H5Dget_create_plist(id)
            guard dcpl >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name) }
            defer { H5Pclose(dcpl) }
            return try body(dcpl, action)
        }
    }
}

/// One stage of a dataset's filter pipeline (``HDF5Dataset/filterStages``).
public struct HDF5Filter: Sendable, Equatable {
    /// HDF5's filter id (`H5Z_filter_t`): 1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 5 nbit,
    /// 6 scaleoffset; registered third-party filters above 255 (32015 zstd, 32000 lzf).
    public var id: Int
    /// "shuffle", "deflate", "fletcher32", "szip", "nbit", "scaleoffset", or "filter-N".
    public var name: String
    /// The client data values (`cd_values`) as stored in the file: deflate's level, shuffle's
    /// element size (set by HDF5 when the dataset was created), none for fletcher32.
    public var parameters: [UInt32]
    /// Whether the filter may be skipped for a chunk (`H5Z_FLAG_OPTIONAL`; deflate and shuffle
    /// are optional: a chunk deflate cannot shrink is stored without it, its mask bit set).
    public var optional: Bool
}
