// MotionChecksum: SHA-256 over OpenSSL's EVP interface (libcrypto), for manifest.json and
// SHA256SUMS (docs/dataset-format.md, "Manifest, checksums and commit"). Only this module and the other wrappers import C.
import CCrypto

/// An incremental SHA-256 hasher with value semantics.
///
/// It wraps an OpenSSL `EVP_MD_CTX` (`EVP_MD_CTX_new`, `EVP_DigestInit_ex` with `EVP_sha256()`,
/// `EVP_DigestUpdate`, `EVP_DigestFinal_ex`, `EVP_MD_CTX_free`). The context lives in a private
/// class; updating a copy of a hasher duplicates the context first (`EVP_MD_CTX_copy_ex`,
/// copy-on-write), so copies never disturb each other — copying midway is a cheap way to get the
/// digest of a prefix.
///
/// ```swift
/// var hasher = SHA256Hasher()
/// hasher.update(Array("abc".utf8))
/// hasher.finalizeHex()   // "ba7816bf…"
/// ```
public struct SHA256Hasher {
    private var context: _DigestContext

    /// Creates a hasher holding the digest state of the empty message.
    public init() {
        context = _DigestContext()
    }

    /// Feeds `bytes` into the digest. An empty buffer changes nothing.
    ///
    /// - Parameter bytes: the next bytes of the message; they are not retained.
    /// - Complexity: O(`bytes.count`).
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        makeContextUnique()
        context.update(bytes)
    }

    /// Feeds `bytes` into the digest. An empty array changes nothing.
    ///
    /// - Parameter bytes: the next bytes of the message.
    /// - Complexity: O(`bytes.count`).
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Finishes the digest and returns it as 64 lowercase hex digits, the way `sha256sum`
    /// prints it. Afterwards the hasher is reset to the empty message and can be reused.
    ///
    /// - Returns: the SHA-256 of everything passed to `update` since `init()` or the last
    ///   `finalizeHex()`.
    public mutating func finalizeHex() -> String {
        makeContextUnique()
        return _hexString(context.finalizeAndReset())
    }

    /// Finishes the digest and returns its 32 bytes; afterwards the hasher is reset to the
    /// empty message, as after `finalizeHex()`.
    public mutating func finalize() -> [UInt8] {
        makeContextUnique()
        return context.finalizeAndReset()
    }

    private mutating func makeContextUnique() {
        if !isKnownUniquelyReferenced(&context) {
            context = context.copy()
        }
    }
}

/// Owns one `EVP_MD_CTX` set up for SHA-256, freed in `deinit`.
///
/// libcrypto only fails these calls when out of memory or misconfigured; both are treated as
/// programmer/environment bugs and trap with a message rather than surfacing as user errors.
final class _DigestContext {
    private let pointer: OpaquePointer

    init() {
        pointer = Self.newContext()
        guard EVP_DigestInit_ex(pointer, EVP_sha256(), nil) == 1 else {
            preconditionFailure("EVP_DigestInit_ex(EVP_sha256()) failed")
        }
    }

    private init(copying other: _DigestContext) {
        pointer = Self.newContext()
        guard EVP_MD_CTX_copy_ex(pointer, other.pointer) == 1 else {
            preconditionFailure("EVP_MD_CTX_copy_ex failed for a SHA-256 context")
        }
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }

    func copy() -> _DigestContext {
        _DigestContext(copying: self)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard EVP_DigestUpdate(pointer, bytes.baseAddress, bytes.count) == 1 else {
            preconditionFailure("EVP_DigestUpdate failed for SHA-256")
        }
    }

    /// Returns the 32-byte digest and re-initialises the context for a new message.
    func finalizeAndReset() -> [UInt8] {
        var length: UInt32 = 0
        let digest = [UInt8](unsafeUninitializedCapacity: Int(EVP_MAX_MD_SIZE)) { buffer, count in
            guard EVP_DigestFinal_ex(pointer, buffer.baseAddress, &length) == 1 else {
                preconditionFailure("EVP_DigestFinal_ex failed for SHA-256")
            }
            count = Int(length)
        }
        precondition(digest.count == 32, "SHA-256 digest has \(digest.count) bytes, expected 32")
        guard EVP_DigestInit_ex(pointer, EVP_sha256(), nil) == 1 else {
            preconditionFailure("EVP_DigestInit_ex(EVP_sha256()) failed")
        }
        return digest
    }

    private static func newContext() -> OpaquePointer {
        guard let pointer = EVP_MD_CTX_new() else {
            preconditionFailure("EVP_MD_CTX_new failed: libcrypto is out of memory")
        }
        return pointer
    }
}

/// Lowercase hex digits of `bytes`, two per byte.
func _hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
}
