// Shared by every fuzz target (docs/hardening.md). Not part of the product.
import MotionCore

/// The fuzzer's bytes, with a cursor for taking a few control bytes off the front.
struct FuzzInput {
    var bytes: [UInt8]
    var position = 0

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The next byte, or 0 when none is left.
    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// Everything after the cursor.
    var rest: [UInt8] { Array(bytes[min(position, bytes.count)...]) }

    /// `payload` cut into chunks at sizes derived from `seed`, so that chunk boundaries fall
    /// everywhere (readers must give the same result however the bytes are cut).
    static func chunks(_ payload: [UInt8], seed: UInt8) -> [[UInt8]] {
        guard seed % 4 != 0, !payload.isEmpty else { return [payload] }
        var out: [[UInt8]] = []
        var i = 0
        var step = Int(seed % 61) + 1
        while i < payload.count {
            let n = min(step, payload.count - i)
            out.append(Array(payload[i..<(i + n)]))
            i += n
            step = step * 7 % 61 + 1
        }
        return out
    }
}

/// Traps unless `error` is one a user may see: a thrown error must render as a message with an
/// exit status, never escape as something else.
func requireUserFacing(_ error: Error) {
    guard let e = error as? UserFacingError else {
        fatalError("fuzz: an error that is not a UserFacingError escaped: \(type(of: error)) \(error)")
    }
    precondition(!e.message.isEmpty, "fuzz: an error with an empty message")
}
