import CHDF5

/// The numeric element types MotionHDF5 writes and reads.
///
/// In the file they are stored little-endian: IEEE 754 binary32/binary64 (`H5T_IEEE_F32LE`,
/// `H5T_IEEE_F64LE`) and two's-complement integers (`H5T_STD_I32LE`, `H5T_STD_I64LE`) — numpy's
/// `<f4`, `<f8`, `<i4`, `<i8`. In memory they are the matching native Swift types.
public enum HDF5ElementType: Sendable, Hashable, CaseIterable {
    /// `Float`, stored as `<f4`.
    case float32
    /// `Double`, stored as `<f8`.
    case float64
    /// `Int32`, stored as `<i4`.
    case int32
    /// `Int64`, stored as `<i8`.
    case int64

    /// Bytes per element.
    public var byteCount: Int {
        switch self {
        case .float32, .int32: 4
        case .float64, .int64: 8
        }
    }

    /// The little-endian file type (a predefined HDF5 type; never closed).
    var fileType: hid_t {
        switch self {
        case .float32: CHDF5_H5T_IEEE_F32LE()
        case .float64: CHDF5_H5T_IEEE_F64LE()
        case .int32: CHDF5_H5T_STD_I32LE()
        case .int64: CHDF5_H5T_STD_I64LE()
        }
    }

    /// The native memory type (a predefined HDF5 type; never closed).
    var nativeType: hid_t {
        switch self {
        case .float32: CHDF5_H5T_NATIVE_FLOAT()
        case .float64: CHDF5_H5T_NATIVE_DOUBLE()
        case .int32: CHDF5_H5T_NATIVE_INT32()
        case .int64: CHDF5_H5T_NATIVE_INT64()
        }
    }

    /// Classifies an HDF5 datatype; `nil` unless it is exactly one of the four little-endian
    /// file types (a big-endian float, an unsigned or 16-bit integer, a string… all give `nil`).
    /// Call under the HDF5 lock.
    init?(hdf5Type type: hid_t) {
        guard H5Tget_order(type) == H5T_ORDER_LE else { return nil }
        let size = H5Tget_size(type)
        switch H5Tget_class(type) {
        case H5T_FLOAT:
            // Also require the IEEE layout (a 4-byte float with another mantissa size is not `<f4`).
            if size == 4, H5Tequal(type, CHDF5_H5T_IEEE_F32LE()) > 0 {
                self = .float32
            } else if size == 8, H5Tequal(type, CHDF5_H5T_IEEE_F64LE()) > 0 {
                self = .float64
            } else {
                return nil
            }
        case H5T_INTEGER:
            guard H5Tget_sign(type) == H5T_SGN_2 else { return nil }
            switch size {
            case 4: self = .int32
            case 8: self = .int64
            default: return nil
            }
        default:
            return nil
        }
    }
}

/// Swift types that map onto an ``HDF5ElementType``; used by the typed `append`/`read` methods.
protocol _HDF5Element {
    static var hdf5ElementType: HDF5ElementType { get }
}

extension Float: _HDF5Element { static var hdf5ElementType: HDF5ElementType { .float32 } }
extension Double: _HDF5Element { static var hdf5ElementType: HDF5ElementType { .float64 } }
extension Int32: _HDF5Element { static var hdf5ElementType: HDF5ElementType { .int32 } }
extension Int64: _HDF5Element { static var hdf5ElementType: HDF5ElementType { .int64 } }
