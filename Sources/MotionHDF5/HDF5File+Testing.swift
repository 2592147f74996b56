import CHDF5

/// Test hooks (`package`, so they stay out of the public API).
extension HDF5File {
    /// The access, modification, change and birth times HDF5 recorded for the object `name`
    /// ("/" for the root group); all 0 when time tracking is off, as in files from ``create(path:)``.
    /// The corresponding C function is `H5Oget_info_by_name2` with `H5O_INFO_TIME`.
    package func _objectTimes(_ name: String) throws -> [Int] {
        try HDF5Library.withLock {
            let action = "cannot read the times of `\(name)` in"
            let fileID = try openFileID(action: action, status: .ioError, objectName: name)
            var info = H5O_info_t()
            guard H5Oget_info_by_name2(fileID, name, &info, UInt32(H5O_INFO_TIME), CHDF5_H5P_DEFAULT()) >= 0 else {
                throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name)
            }
            return [info.atime, info.mtime, info.ctime, info.btime].map { Int($0) }
        }
    }

    /// The number of HDF5 objects (files, datasets, groups, types, attributes) this process has
    /// open in the file, as `H5Fget_obj_count(…, H5F_OBJ_ALL)` counts them; for leak tests.
    package func _openObjectCount() throws -> Int {
        try HDF5Library.withLock {
            let fileID = try openFileID(action: "cannot count the open objects of", status: .ioError)
            return Int(H5Fget_obj_count(fileID, CHDF5_H5F_OBJ_ALL()))
        }
    }
}

extension HDF5File {
    /// The POSIX descriptor the sec2 file driver holds for this file, for tests of its flags.
    package func _fileDescriptor() throws -> Int32 {
        try HDF5Library.withLock {
            let action = "cannot get the descriptor of"
            let fileID = try openFileID(action: action, status: .ioError)
            guard let fd = try _posixDescriptor(fileID, action: action, path: path, status: .ioError) else {
                throw HDF5Error(.ioError, action, path: path, reason: "the file driver is not sec2")
            }
            return fd
        }
    }
}
