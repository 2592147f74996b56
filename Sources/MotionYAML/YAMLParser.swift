#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Parses one YAML document into a `YAMLNode` tree with libyaml's event parser.
///
/// Refused, each as a `YAMLError` with `line:column`: syntax errors (tabs used for indentation
/// among them), aliases, a second document, duplicate mapping keys, text that is not UTF-8,
/// explicit tags other than `!!str`/`!!seq`/`!!map`/`!`, and nesting deeper than `maxDepth`.
/// Anchors (`&name`) are accepted and ignored, since without aliases they change nothing.
public enum YAMLParser {
    /// The nesting limit used when none is given.
    public static let defaultMaxDepth = 256

    /// Parses `bytes` (UTF-8, an optional BOM is skipped).
    ///
    /// - Parameters:
    ///   - bytes: the document text.
    ///   - file: the file name used in error messages.
    ///   - maxDepth: the deepest nesting of sequences and mappings accepted.
    /// - Returns: the root node; the null node at 1:1 for an empty document (only whitespace
    ///   and comments).
    /// - Throws: `YAMLError`.
    public static func parse(bytes: [UInt8], file: String, maxDepth: Int = defaultMaxDepth) throws(YAMLError) -> YAMLNode {
        var text = bytes
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
        if let bad = firstInvalidUTF8(text) {
            let (line, column) = lineAndColumn(of: bad, in: text)
            throw YAMLError(file: file, line: line, column: column, kind: .invalidUTF8,
                            problem: "byte 0x" + hex(text[bad]))
        }
        var builder = _YAMLTreeBuilder(file: file, maxDepth: maxDepth, text: text)
        return try builder.run()
    }

    /// Parses `text`.
    ///
    /// - Throws: `YAMLError`.
    public static func parse(_ text: String, file: String, maxDepth: Int = defaultMaxDepth) throws(YAMLError) -> YAMLNode {
        try parse(bytes: Array(text.utf8), file: file, maxDepth: maxDepth)
    }

    /// Reads and parses the file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file, as the user named it (used in messages as given).
    ///   - maxBytes: files larger than this are refused (`YAMLFileError.tooLarge`).
    /// - Throws: `YAMLFileError` when the file cannot be read, `YAMLError` when it does not parse.
    public static func parse(path: String, maxBytes: Int = 16 << 20, maxDepth: Int = defaultMaxDepth) throws -> YAMLNode {
        let bytes = try readFile(path: path, maxBytes: maxBytes)
        return try parse(bytes: bytes, file: path, maxDepth: maxDepth)
    }

    /// Reads a whole file with `open(2)`/`read(2)`.
    ///
    /// - Throws: `YAMLFileError`.
    public static func readFile(path: String, maxBytes: Int) throws(YAMLFileError) -> [UInt8] {
        // Non-blocking open then fstat, so that a FIFO (or device, socket) is refused instead of
        // waited on (docs/hardening.md, "Data safety: FIFOs and special files"); MotionCore's
        // `RegularFile` does the same for the other modules, which MotionYAML does not import.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        if fd < 0 {
            let code = errno
            var st = stat()
            if code == ENXIO, stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK { throw notRegular(path, "a socket") }
            throw fileError(path, code)
        }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) != 0 { throw fileError(path, errno) }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw fileError(path, EISDIR)
        case S_IFIFO: throw notRegular(path, "a FIFO")
        case S_IFCHR: throw notRegular(path, "a character device")
        case S_IFBLK: throw notRegular(path, "a block device")
        case S_IFSOCK: throw notRegular(path, "a socket")
        default: throw notRegular(path, "a special file")
        }
        let flags = fcntl(fd, F_GETFL)
        if flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 { throw fileError(path, errno) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fileError(path, errno)
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if out.count > maxBytes {
                throw YAMLFileError(path: path, errno: 0, tooLarge: true,
                                    reason: "it is larger than \(maxBytes) bytes")
            }
        }
        return out
    }

    private static func notRegular(_ path: String, _ kind: String) -> YAMLFileError {
        YAMLFileError(path: path, errno: 0, notRegularFile: true,
                      reason: "it is \(kind), not a regular file; motionprep reads only regular files and never waits on a pipe, device or socket")
    }

    private static func fileError(_ path: String, _ code: Int32) -> YAMLFileError {
        let reason: String
        switch code {
        case ENOENT, ENOTDIR: reason = "no such file"
        case EACCES, EPERM: reason = "permission denied"
        case EISDIR: reason = "it is a folder"
        default:
            if let c = strerror(code) {
                let s = String(cString: c)
                reason = s.prefix(1).lowercased() + s.dropFirst()
            } else {
                reason = "error \(code)"
            }
        }
        return YAMLFileError(path: path, errno: code, reason: reason)
    }

    static func hex(_ b: UInt8) -> String {
        let s = String(b, radix: 16, uppercase: true)
        return s.count == 1 ? "0" + s : s
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ b: [UInt8]) -> Int? {
        var i = 0
        while i < b.count {
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            let need: Int
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; hi = 0x9F
            case 0xF0: need = 3; lo = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; hi = 0x8F
            default: return i
            }
            guard i + need < b.count, (lo...hi).contains(b[i + 1]) else { return i }
            if need >= 2 {
                for k in 2...need where !(0x80...0xBF).contains(b[i + k]) { return i }
            }
            i += need + 1
        }
        return nil
    }

    /// 1-based line and column (in characters) of byte `offset` in valid-up-to-`offset` UTF-8.
    static func lineAndColumn(of offset: Int, in b: [UInt8]) -> (Int, Int) {
        var line = 1, column = 1
        var i = 0
        while i < offset {
            if b[i] == UInt8(ascii: "\n") { line += 1; column = 1 }
            else if b[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return (line, column)
    }
}
