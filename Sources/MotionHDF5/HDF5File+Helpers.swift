// Helpers shared by the wrapper files (call under the lock): property lists, object types, dataset dims, chunk shapes.
import CHDF5
import MotionCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `H5Pcreate(propertyClass)`, throwing `.cannotCreate`/`.ioError`-style errors with context.
func _createPropertyList(_ propertyClass: hid_t, _ action: String, path: String,
                         objectName: String? = nil, status: ExitStatus = .cannotCreate) throws -> hid_t {
    let plist = H5Pcreate(propertyClass)
    guard plist >= 0 else { throw HDF5Error.fromLibrary(status, action, path: path, objectName: objectName) }
    return plist
}

/// A link creation property list whose link names are UTF-8 (`H5Pset_char_encoding`), so h5py
/// decodes non-ASCII names as text. The caller closes it.
func _utf8LinkCreationList(_ action: String, path: String, objectName: String?) throws -> hid_t {
    let lcpl = H5Pcreate(CHDF5_H5P_LINK_CREATE())
    guard lcpl >= 0 else { throw HDF5Error.fromLibrary(.cannotCreate, action, path: path, objectName: objectName) }
    guard H5Pset_char_encoding(lcpl, H5T_CSET_UTF8) >= 0 else {
        let error = HDF5Error.fromLibrary(.cannotCreate, action, path: path, objectName: objectName)
        H5Pclose(lcpl)
        throw error
    }
    return lcpl
}

/// The type of the object `name` links to at the root, or `nil` when there is no such link.
func _objectType(_ fileID: hid_t, _ name: String, action: String, path: String) throws -> H5O_type_t? {
    // H5Lexists on "" or names with "/" components is undefined for missing parents; MotionHDF5
    // only uses root-level names, so reject slashes up front.
    if name.isEmpty || name.contains("/") { return nil }
    let exists = H5Lexists(fileID, name, CHDF5_H5P_DEFAULT())
    guard exists >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name) }
    guard exists > 0 else { return nil }
    var info = H5O_info_t()
    guard H5Oget_info_by_name2(fileID, name, &info, UInt32(H5O_INFO_BASIC), CHDF5_H5P_DEFAULT()) >= 0 else {
        throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: name)
    }
    return info.type
}

/// The current dimensions of a dataset (`H5Dget_space`, `H5Sget_simple_extent_dims`).
func _datasetDims(_ datasetID: hid_t, action: String, path: String, objectName: String) throws -> [hsize_t] {
    let space = H5Dget_space(datasetID)
    guard space >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: objectName) }
    defer { H5Sclose(space) }
    let rank = H5Sget_simple_extent_ndims(space)
    guard rank >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: objectName) }
    var dims = [hsize_t](repeating: 0, count: Int(rank))
    guard rank == 0 || H5Sget_simple_extent_dims(space, &dims, nil) >= 0 else {
        throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: objectName)
    }
    return dims
}

/// The chunk shape of a dataset, or `nil` when it is not chunked (`H5Dget_create_plist`,
/// `H5Pget_layout`, `H5Pget_chunk`).
func _chunkShape(_ datasetID: hid_t, rank: Int, action: String, path: String, objectName: String) throws -> [Int]? {
    let dcpl = H5Dget_create_plist(datasetID)
    guard dcpl >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: objectName) }
    defer { H5Pclose(dcpl) }
    guard H5Pget_layout(dcpl) == H5D_CHUNKED else { return nil }
    var dims = [hsize_t](repeating: 0, count: rank)
    guard H5Pget_chunk(dcpl, Int32(rank), &dims) >= 0 else {
        throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: objectName)
    }
    return dims.map { Int($0) }
}
