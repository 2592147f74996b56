// XXH3-64 over libxxhash (Debian's libxxhash-dev): the cheap checksum of motionprep's internal
// files (record blocks and headers, docs/hardening.md, "Records"), where a changed byte must be
// found but no one outside motionprep checks the value. SHA-256 (SHA256Hasher) stays for inputs,
// outputs and SHA256SUMS, which `sha256sum -c` must agree with.
import CXXHash

/// An incremental XXH3-64 hasher (seed 0): `XXH3_createState`, `XXH3_64bits_reset`,
/// `XXH3_64bits_update`, `XXH3_64bits_digest`. Not copyable: one hasher, one message.
///
/// ```swift
/// var h = XXH3Hasher()
/// h.update(bytes)
/// h.digest()   // UInt64; XXH3Hasher.hash(bytes) in one go
/// ```
public struct XXH3Hasher: ~Copyable {
    private let state: OpaquePointer

    /// A hasher holding the state of the empty message.
    public init() {
        // XXH3_createState only fails when malloc does.
        guard let s = XXH3_createState() else { fatalError("out of memory (XXH3_createState)") }
        state = s
        XXH3_64bits_reset(state)
    }

    deinit { XXH3_freeState(state) }

    /// Feeds `bytes` into the checksum; an empty buffer changes nothing.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = XXH3_64bits_update(state, base, bytes.count)
    }

    /// Feeds the bytes of `values` (host order: little-endian on every supported platform).
    public mutating func update<T: BitwiseCopyable>(_ values: [T]) {
        values.withUnsafeBytes { update($0) }
    }

    /// The XXH3-64 of everything fed so far (the hasher may be fed more afterwards).
    public func digest() -> UInt64 { XXH3_64bits_digest(state) }

    /// The XXH3-64 of `bytes`, in one call.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = bytes.baseAddress else { return XXH3_64bits(nil, 0) }
        return XXH3_64bits(base, bytes.count)
    }

    /// The XXH3-64 of `bytes`, in one call.
    public static func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { hash($0) } }
}
