import CHDF5
import MotionCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Root attributes (docs/dataset-format.md, "HDF5 files"): text as variable-length UTF-8 strings (`H5T_CSET_UTF8`, so h5py
/// returns `str`), string lists as 1-D arrays of them, integers as `<i8`, reals as `<f8`.
///
/// Setting an attribute that already exists replaces it (`H5Adelete`, then `H5Acreate2`).
/// Attribute names are stored as UTF-8 too.
extension HDF5File {
    // MARK: Writing

    /// Sets a scalar variable-length UTF-8 string attribute on the root group.
    ///
    /// - Parameters:
    ///   - name: the attribute's name, e.g. "format".
    ///   - string: the text; may be empty or non-ASCII, but must not contain NUL characters.
    /// - Throws: ``HDF5Error``: `.dataError` when the text contains a NUL, `.ioError` when the
    ///   file is closed, read-only, or HDF5 fails. The corresponding C function is `H5Awrite`.
    public func setAttribute(_ name: String, string: String) throws {
        try writeStrings(name, [string], scalar: true)
    }

    /// Sets a 1-D array attribute of variable-length UTF-8 strings on the root group; an empty
    /// list gives a 0-length array (h5py reads `array([], dtype=object)`).
    ///
    /// Lists too large for an object header (over 64 KiB) go to dense attribute storage, which
    /// the 1.8 format (``create(path:)``) allows.
    ///
    /// - Parameters:
    ///   - name: the attribute's name, e.g. "class_names".
    ///   - strings: the texts, in order; none may contain a NUL character.
    /// - Throws: as ``setAttribute(_:string:)``.
    public func setAttribute(_ name: String, strings: [String]) throws {
        try writeStrings(name, strings, scalar: false)
    }

    /// Sets a scalar 64-bit signed integer attribute (`<i8`) on the root group.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the file is closed, read-only, or HDF5 fails.
    public func setAttribute(_ name: String, int: Int64) throws {
        try withUnsafeBytes(of: int) { bytes in
            try writeScalar(name, fileType: CHDF5_H5T_STD_I64LE(), memoryType: CHDF5_H5T_NATIVE_INT64(), bytes)
        }
    }

    /// Sets a scalar 64-bit IEEE float attribute (`<f8`) on the root group.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the file is closed, read-only, or HDF5 fails.
    public func setAttribute(_ name: String, double: Double) throws {
        try withUnsafeBytes(of: double) { bytes in
            try writeScalar(name, fileType: CHDF5_H5T_IEEE_F64LE(), memoryType: CHDF5_H5T_NATIVE_DOUBLE(), bytes)
        }
    }

    // MARK: Reading

    /// The names of the root group's attributes, sorted by their UTF-8 bytes.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the file is closed or HDF5 fails. The
    ///   corresponding C function is `H5Aiterate2`.
    public func attributeNames() throws -> [String] {
        try HDF5Library.withLock {
            let action = "cannot list the attributes of"
            let fileID = try openFileID(action: action, status: .ioError)
            final class Collector { var names: [String] = [] }
            let collector = Collector()
            var index: hsize_t = 0
            let status = withExtendedLifetime(collector) {
                H5Aiterate2(fileID, H5_INDEX_NAME, H5_ITER_INC, &index, { _, name, _, context in
                    guard let name, let context else { return -1 }
                    Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().names.append(String(cString: name))
                    return 0
                }, Unmanaged.passUnretained(collector).toOpaque())
            }
            guard status >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path) }
            return collector.names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    /// Reads a scalar string attribute (variable-length or fixed-length, ASCII or UTF-8; a 1-D
    /// attribute with exactly one string is accepted too).
    ///
    /// - Throws: ``HDF5Error``: `.dataError` when the attribute is missing or not one string,
    ///   `.ioError` when reading fails.
    public func stringAttribute(_ name: String) throws -> String {
        try HDF5Library.withLock {
            let action = "cannot read attribute `\(name)` of"
            let strings = try readStringsLocked(name, action: action)
            guard strings.count == 1 else {
                throw HDF5Error(.dataError, action, path: path, objectName: name,
                                reason: "it holds \(strings.count) strings, expected one")
            }
            return strings[0]
        }
    }

    /// Reads a string-list attribute: every string of a 1-D (or scalar) string attribute, in order.
    ///
    /// - Throws: ``HDF5Error``: `.dataError` when the attribute is missing or not made of
    ///   strings, `.ioError` when reading fails.
    public func stringsAttribute(_ name: String) throws -> [String] {
        try HDF5Library.withLock {
            try readStringsLocked(name, action: "cannot read attribute `\(name)` of")
        }
    }

    /// Reads a scalar integer attribute of any integer file type, as `Int64`.
    ///
    /// - Throws: ``HDF5Error``: `.dataError` when the attribute is missing, not an integer, or
    ///   not a single value; `.ioError` when reading fails.
    public func intAttribute(_ name: String) throws -> Int64 {
        try HDF5Library.withLock {
            var value: Int64 = 0
            try withUnsafeMutableBytes(of: &value) { bytes in
                try readScalarLocked(name, classes: [H5T_INTEGER], kind: "an integer",
                                     memoryType: CHDF5_H5T_NATIVE_INT64(), into: bytes)
            }
            return value
        }
    }

    /// Reads a scalar real attribute of any float or integer file type, as `Double`.
    ///
    /// - Throws: ``HDF5Error``: `.dataError` when the attribute is missing, not a number, or not
    ///   a single value; `.ioError` when reading fails.
    public func doubleAttribute(_ name: String) throws -> Double {
        try HDF5Library.withLock {
            var value: Double = 0
            try withUnsafeMutableBytes(of: &value) { bytes in
                try readScalarLocked(name, classes: [H5T_FLOAT, H5T_INTEGER], kind: "a number",
                                     memoryType: CHDF5_H5T_NATIVE_DOUBLE(), into: bytes)
            }
            return value
        }
    }

    // MARK: Internals

    private func writeStrings(_ name: String, _ strings: [String], scalar: Bool) throws {
        let action = "cannot write attribute `\(name)` to"
        if let bad = strings.firstIndex(where: { $0.utf8.contains(0) }) {
            throw HDF5Error(.dataError, action, path: path, objectName: name,
                            reason: "string \(bad) contains a NUL character, which HDF5 strings cannot hold")
        }
        // strdup'd C strings stay valid across the H5Awrite call; freed afterwards.
        var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer(strdup($0)) }
        defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
        if pointers.isEmpty { pointers = [nil] }   // a valid buffer address for the 0-element write
        try HDF5Library.withLock {
            let fileID = try openFileID(action: action, status: .ioError, objectName: name)
            let stringType = try _utf8StringType(action: action, path: path, objectName: name)
            defer { H5Tclose(stringType) }
            let space = scalar
                ? H5Screate(H5S_SCALAR)
                : H5Screate_simple(1, [hsize_t(strings.count)], nil)
            guard space >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
            defer { H5Sclose(space) }
            try pointers.withUnsafeBytes { bytes in
                try writeAttributeLocked(fileID, name, fileType: stringType, memoryType: stringType,
                                         space: space, bytes, action: action)
            }
        }
    }

    private func writeScalar(_ name: String, fileType: hid_t, memoryType: hid_t,
                             _ bytes: UnsafeRawBufferPointer) throws {
        let action = "cannot write attribute `\(name)` to"
        try HDF5Library.withLock {
            let fileID = try openFileID(action: action, status: .ioError, objectName: name)
            let space = H5Screate(H5S_SCALAR)
            guard space >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
            defer { H5Sclose(space) }
            try writeAttributeLocked(fileID, name, fileType: fileType, memoryType: memoryType,
                                     space: space, bytes, action: action)
        }
    }

    /// Replaces attribute `name` of the root group with one of the given type and space holding
    /// `bytes`. Call under the lock.
    private func writeAttributeLocked(_ fileID: hid_t, _ name: String, fileType: hid_t, memoryType: hid_t,
                                      space: hid_t, _ bytes: UnsafeRawBufferPointer, action: String) throws {
        let exists = H5Aexists(fileID, name)
        guard exists >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        if exists > 0, H5Adelete(fileID, name) < 0 {
            throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name)
        }
        let acpl = try _createPropertyList(CHDF5_H5P_ATTRIBUTE_CREATE(), action, path: path,
                                           objectName: name, status: .ioError)
        defer { H5Pclose(acpl) }
        guard H5Pset_char_encoding(acpl, H5T_CSET_UTF8) >= 0 else {
            throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name)
        }
        let attribute = H5Acreate2(fileID, name, fileType, space, acpl, CHDF5_H5P_DEFAULT())
        guard attribute >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        defer { H5Aclose(attribute) }
        guard H5Awrite(attribute, memoryType, bytes.baseAddress) >= 0 else {
            throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name)
        }
    }

    /// Opens attribute `name` of the root group, or throws `.dataError` if it is missing.
    /// The caller closes it. Call under the lock.
    private func openAttributeLocked(_ name: String, action: String) throws -> hid_t {
        let fileID = try openFileID(action: action, status: .ioError, objectName: name)
        let exists = H5Aexists(fileID, name)
        guard exists >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        guard exists > 0 else {
            throw HDF5Error(.dataError, action, path: path, objectName: name, reason: "there is no such attribute")
        }
        let attribute = H5Aopen(fileID, name, CHDF5_H5P_DEFAULT())
        guard attribute >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        return attribute
    }

    /// Every string in attribute `name`, which must have a string type. Call under the lock.
    private func readStringsLocked(_ name: String, action: String) throws -> [String] {
        let attribute = try openAttributeLocked(name, action: action)
        defer { H5Aclose(attribute) }
        let fileType = H5Aget_type(attribute)
        guard fileType >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        defer { H5Tclose(fileType) }
        guard H5Tget_class(fileType) == H5T_STRING else {
            throw HDF5Error(.dataError, action, path: path, objectName: name, reason: "it is not text")
        }
        let space = H5Aget_space(attribute)
        guard space >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        defer { H5Sclose(space) }
        let points = H5Sget_simple_extent_npoints(space)
        guard points >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        let count = Int(points)
        guard count > 0 else { return [] }

        // The memory type is the file's string type in native form, keeping its character set
        // and (for fixed-length strings) its size and padding, so HDF5 converts nothing.
        let memoryType = H5Tget_native_type(fileType, H5T_DIR_DEFAULT)
        guard memoryType >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        defer { H5Tclose(memoryType) }
        let variable = H5Tis_variable_str(memoryType)
        guard variable >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }

        if variable > 0 {
            var pointers = [UnsafeMutablePointer<CChar>?](repeating: nil, count: count)
            guard H5Aread(attribute, memoryType, &pointers) >= 0 else {
                throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name)
            }
            defer { _ = H5Dvlen_reclaim(memoryType, space, CHDF5_H5P_DEFAULT(), &pointers) }
            return pointers.map { $0.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? "" }
        }

        let size = H5Tget_size(memoryType)
        guard size > 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        let padding = H5Tget_strpad(memoryType)
        var buffer = [UInt8](repeating: 0, count: count * size)
        guard H5Aread(attribute, memoryType, &buffer) >= 0 else {
            throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name)
        }
        return (0..<count).map { index in
            var bytes = buffer[(index * size)..<((index + 1) * size)]
            if padding == H5T_STR_SPACEPAD {
                while bytes.last == UInt8(ascii: " ") { bytes.removeLast() }
            } else if let end = bytes.firstIndex(of: 0) {
                bytes = bytes[..<end]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Reads a one-value attribute whose type class is one of `classes`, converted to
    /// `memoryType`, into `bytes`. Call under the lock.
    private func readScalarLocked(_ name: String, classes: [H5T_class_t], kind: String,
                                  memoryType: hid_t, into bytes: UnsafeMutableRawBufferPointer) throws {
        let action = "cannot read attribute `\(name)` of"
        let attribute = try openAttributeLocked(name, action: action)
        defer { H5Aclose(attribute) }
        let fileType = H5Aget_type(attribute)
        guard fileType >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        defer { H5Tclose(fileType) }
        guard classes.contains(H5Tget_class(fileType)) else {
            throw HDF5Error(.dataError, action, path: path, objectName: name, reason: "it is not \(kind)")
        }
        let space = H5Aget_space(attribute)
        guard space >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
        defer { H5Sclose(space) }
        let points = H5Sget_simple_extent_npoints(space)
        guard points == 1 else {
            throw HDF5Error(.dataError, action, path: path, objectName: name,
                            reason: "it holds \(max(points, 0)) values, expected one")
        }
        guard H5Aread(attribute, memoryType, bytes.baseAddress) >= 0 else {
            throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name)
        }
    }
}

/// A new variable-length, UTF-8, null-terminated string type (`H5Tcopy(H5T_C_S1)`,
/// `H5Tset_size(H5T_VARIABLE)`, `H5Tset_cset(H5T_CSET_UTF8)`). The caller closes it.
func _utf8StringType(action: String, path: String, objectName: String?) throws -> hid_t {
    let type = H5Tcopy(CHDF5_H5T_C_S1())
    guard type >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: objectName) }
    guard H5Tset_size(type, CHDF5_H5T_VARIABLE()) >= 0, H5Tset_cset(type, H5T_CSET_UTF8) >= 0 else {
        let error = HDF5Error.fromLibrary(.ioError, action, path: path, objectName: objectName)
        H5Tclose(type)
        throw error
    }
    return type
}
