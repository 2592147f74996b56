// What a file is made of, read without following anything out of it: the root's links and a
// dataset's storage layout. `motionprep validate` uses these to refuse files whose data would
// come from somewhere else (docs/hardening.md, "Data safety: validate and the container format").
import CHDF5
import MotionCore

/// One link at the root of a file, as stored: never traversed to find out what it is.
public struct HDF5Link: Sendable, Equatable {
    /// What a root link is.
    public enum Kind: Sendable, Equatable {
        /// A hard link to a dataset (what motionprep writes).
        case dataset
        /// A hard link to a group.
        case group
        /// A hard link to a named (committed) datatype.
        case namedDatatype
        /// A hard link to an object of another type.
        case otherObject
        /// A soft link: a path inside the same file, resolved when opened.
        case soft(target: String)
        /// An external link: an object in another file, opened when the link is traversed.
        case external(file: String, object: String)
        /// A user-defined link class (`H5L_type_t` value).
        case userDefined(Int)
    }

    /// The link's name at the root.
    public var name: String
    public var kind: Kind

    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// How a dataset's elements are stored (`H5D_layout_t`).
public enum HDF5Layout: String, Sendable, Equatable {
    /// In the dataset's object header (small data).
    case compact
    /// One block in the file, or in external files (``HDF5StorageInfo/externalFiles``).
    case contiguous
    /// Fixed-size chunks, each possibly filtered (what motionprep writes).
    case chunked
    /// A virtual dataset: a view over datasets that may live in other files.
    case virtual
    /// Any other layout value.
    case unknown
}

/// Where a dataset's elements live.
public struct HDF5StorageInfo: Sendable, Equatable {
    public var layout: HDF5Layout
    /// The external files of a contiguous dataset (`H5Pget_external`), in order; empty when the
    /// data is inside the file.
    public var externalFiles: [String]
}

extension HDF5File {
    /// The links at the root, sorted by their UTF-8 bytes. Soft and external links are reported
    /// as such and never followed, so listing a file never opens another file; hard links are
    /// typed with `H5Oget_info_by_name2`, which stays inside the file.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the file is closed or HDF5 fails. The
    ///   corresponding C functions are `H5Literate`, `H5Lget_val` and `H5Lunpack_elink_val`.
    public func rootLinks() throws -> [HDF5Link] {
        try HDF5Library.withLock {
            let action = "cannot list the links of"
            let fileID = try openFileID(action: action, status: .ioError)
            final class Collector { var links: [(name: String, type: H5L_type_t, valueSize: Int)] = [] }
            let collector = Collector()
            var index: hsize_t = 0
            let status = withExtendedLifetime(collector) {
                H5Literate(fileID, H5_INDEX_NAME, H5_ITER_INC, &index, { _, name, info, context in
                    guard let name, let info, let context else { return -1 }
                    let c = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
                    let valueSize = info.pointee.type == H5L_TYPE_HARD ? 0 : Int(info.pointee.u.val_size)
                    c.links.append((String(cString: name), info.pointee.type, valueSize))
                    return 0
                }, Unmanaged.passUnretained(collector).toOpaque())
            }
            guard status >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: path) }
            var out: [HDF5Link] = []
            for link in collector.links {
                let kind: HDF5Link.Kind
                switch link.type {
                case H5L_TYPE_HARD:
                    var info = H5O_info_t()
                    guard H5Oget_info_by_name2(fileID, link.name, &info, UInt32(H5O_INFO_BASIC), CHDF5_H5P_DEFAULT()) >= 0 else {
                        throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: link.name)
                    }
                    switch info.type {
                    case H5O_TYPE_DATASET: kind = .dataset
                    case H5O_TYPE_GROUP: kind = .group
                    case H5O_TYPE_NAMED_DATATYPE: kind = .namedDatatype
                    default: kind = .otherObject
                    }
                case H5L_TYPE_SOFT, H5L_TYPE_EXTERNAL:
                    var value = [UInt8](repeating: 0, count: max(1, link.valueSize))
                    guard H5Lget_val(fileID, link.name, &value, value.count, CHDF5_H5P_DEFAULT()) >= 0 else {
                        throw HDF5Error.fromLibrary(.ioError, action, path: path, objectName: link.name)
                    }
                    if link.type == H5L_TYPE_SOFT {
                        kind = .soft(target: Self.cString(value[...]))
                    } else {
                        var fileName: UnsafePointer<CChar>?
                        var objectName: UnsafePointer<CChar>?
                        let ok = value.withUnsafeBytes {
                            H5Lunpack_elink_val($0.baseAddress, $0.count, nil, &fileName, &objectName) >= 0
                        }
                        kind = .external(file: ok ? fileName.map { String(cString: $0) } ?? "?" : "?",
                                         object: ok ? objectName.map { String(cString: $0) } ?? "?" : "?")
                    }
                default:
                    kind = .userDefined(Int(link.type.rawValue))
                }
                out.append(HDF5Link(name: link.name, kind: kind))
            }
            return out.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        }
    }

    /// Text up to the first NUL.
    private static func cString(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}

extension HDF5Dataset {
    /// The dataset's layout and external files, from its creation property list; reading it
    /// opens no other file.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) when the dataset is closed or HDF5 fails. The
    ///   corresponding C functions are `H5Pget_layout`, `H5Pget_external_count` and `H5Pget_external`.
    public var storageInfo: HDF5StorageInfo {
        get throws {
            try HDF5Library.withLock {
                let action = "cannot read the storage layout of dataset `\(name)` in"
                let id = try openID(action: action)
                let dcpl = H5Dget_create_plist(id)
                guard dcpl >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name) }
                defer { H5Pclose(dcpl) }
                let layout: HDF5Layout = switch H5Pget_layout(dcpl) {
                case H5D_COMPACT: .compact
                case H5D_CONTIGUOUS: .contiguous
                case H5D_CHUNKED: .chunked
                case H5D_VIRTUAL: .virtual
                default: .unknown
                }
                let count = H5Pget_external_count(dcpl)
                guard count >= 0 else { throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name) }
                var files: [String] = []
                for i in 0..<UInt32(count) {
                    var buffer = [CChar](repeating: 0, count: 4096)
                    var offset: off_t = 0
                    var size: hsize_t = 0
                    guard H5Pget_external(dcpl, i, buffer.count, &buffer, &offset, &size) >= 0 else {
                        throw HDF5Error.fromLibrary(.ioError, action, path: file.path, objectName: name)
                    }
                    files.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                }
                return HDF5StorageInfo(layout: layout, externalFiles: files)
            }
        }
    }
}
