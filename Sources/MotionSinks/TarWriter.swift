import MotionCore

/// Streams a POSIX ustar archive (IEEE Std 1003.1, `pax` "ustar Interchange Format") of regular
/// files: a 512-byte header per member, the content padded with zeros to a 512-byte boundary,
/// and two zero blocks at the end.
///
/// Headers are deterministic: mode 0644, uid/gid 0, user and group name `root`, the given
/// modification time (0 unless the caller passes `SOURCE_DATE_EPOCH`), and the checksum computed
/// as the unsigned byte sum with the checksum field read as spaces.
///
/// Because every member starts at a multiple of 512 bytes of the archive, data that is
/// 64-byte aligned within a member (npy arrays, see `NPYHeader`) is 64-byte aligned in the tar.
package struct TarWriter {
    /// The tar block size.
    package static let blockSize = 512
    /// Largest member size the 11-digit octal size field holds (8 GiB − 1).
    package static let maxMemberSize = (1 << 33) - 1

    private let output: (UnsafeRawBufferPointer) throws -> Void
    private let modificationTime: Int
    private var memberRemaining = 0
    private var memberSize = 0
    private var inMember = false
    /// Bytes written so far.
    package private(set) var bytesWritten = 0

    /// Creates a writer that hands every archive byte, in order, to `output`.
    package init(modificationTime: Int = 0, output: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.modificationTime = modificationTime
        self.output = output
    }

    /// The archive's total size for members of the given content sizes (headers, padding and the
    /// two end blocks included).
    package static func archiveSize(memberSizes: [Int]) -> Int {
        memberSizes.reduce(2 * blockSize) { $0 + blockSize + paddedSize($1) }
    }

    /// `size` rounded up to a whole number of blocks.
    package static func paddedSize(_ size: Int) -> Int {
        (size + blockSize - 1) / blockSize * blockSize
    }

    /// Starts a member: writes its header. Exactly `size` content bytes must follow.
    /// - Throws: `MotionError(.ioError)` when the name does not fit the 100-byte name field or
    ///   the size the size field; whatever `output` throws.
    package mutating func beginMember(name: String, size: Int) throws {
        precondition(!inMember, "TarWriter: beginMember(\(name)) while \(memberRemaining) bytes of the previous member are missing")
        try emit(Self.header(name: name, size: size, modificationTime: modificationTime))
        inMember = true
        memberRemaining = size
        memberSize = size
        if size == 0 { try endMember() }
    }

    /// Writes content of the current member.
    package mutating func writeContent(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        precondition(inMember && bytes.count <= memberRemaining,
                     "TarWriter: \(bytes.count) content bytes given, \(memberRemaining) expected")
        try emit(bytes)
        memberRemaining -= bytes.count
        if memberRemaining == 0 { try endMember() }
    }

    /// Writes content of the current member.
    package mutating func writeContent(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeContent($0) }
    }

    /// Writes the two zero blocks that end the archive.
    package mutating func finish() throws {
        precondition(!inMember, "TarWriter: finish while \(memberRemaining) bytes of a member are missing")
        try emit([UInt8](repeating: 0, count: 2 * Self.blockSize))
    }

    private mutating func endMember() throws {
        inMember = false
        let pad = Self.paddedSize(memberSize) - memberSize
        if pad > 0 { try emit([UInt8](repeating: 0, count: pad)) }
    }

    private mutating func emit(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try emit($0) }
    }

    private mutating func emit(_ bytes: UnsafeRawBufferPointer) throws {
        try output(bytes)
        bytesWritten += bytes.count
    }

    /// The 512-byte ustar header of a regular file.
    /// - Throws: `MotionError(.ioError)` when `name` is empty or longer than 100 UTF-8 bytes, or
    ///   `size` exceeds `maxMemberSize`.
    package static func header(name: String, size: Int, modificationTime: Int = 0) throws -> [UInt8] {
        let nameBytes = Array(name.utf8)
        guard !nameBytes.isEmpty, nameBytes.count <= 100 else {
            throw MotionError(.ioError, "cannot store `\(name)` in a tar archive: member names must be 1 to 100 bytes long")
        }
        guard (0...maxMemberSize).contains(size) else {
            throw MotionError(.ioError, "cannot store `\(name)` in a tar archive: \(size) bytes is more than the ustar limit of 8 GiB; lower `windows_per_shard`")
        }
        var h = [UInt8](repeating: 0, count: blockSize)
        func put(_ bytes: [UInt8], at offset: Int) {
            for (i, b) in bytes.enumerated() { h[offset + i] = b }
        }
        func octal(_ value: Int, digits: Int) -> [UInt8] {
            let text = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, digits - text.count)) + text).utf8) + [0]
        }
        put(nameBytes, at: 0)
        put(octal(0o644, digits: 7), at: 100)          // mode
        put(octal(0, digits: 7), at: 108)              // uid
        put(octal(0, digits: 7), at: 116)              // gid
        put(octal(size, digits: 11), at: 124)          // size
        put(octal(max(0, min(modificationTime, maxMemberSize)), digits: 11), at: 136)  // mtime
        put(Array("        ".utf8), at: 148)           // checksum: spaces while summing
        h[156] = UInt8(ascii: "0")                     // typeflag: regular file
        put(Array("ustar".utf8) + [0], at: 257)        // magic
        put(Array("00".utf8), at: 263)                 // version
        put(Array("root".utf8), at: 265)               // uname
        put(Array("root".utf8), at: 297)               // gname
        put(octal(0, digits: 7), at: 329)              // devmajor
        put(octal(0, digits: 7), at: 337)              // devminor
        let sum = h.reduce(0) { $0 + Int($1) }
        // Six octal digits, NUL, space: the form GNU tar and Python's tarfile write.
        put(octal(sum, digits: 6) + [UInt8(ascii: " ")], at: 148)
        return h
    }
}
