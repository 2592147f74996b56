#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file's label names numbered as they first occur (the ids of `LabelEvents`), with the last
/// label's bytes kept so that a run of rows with one label costs one short comparison: the CSV
/// and MotionCollector kernels' one interner.
struct _LabelInterner {
    typealias Pointer = UnsafePointer<UInt8>

    /// The names, by id.
    private(set) var names: [String] = []
    private var ids: [String: Int32] = [:]
    private var last: [UInt8] = []
    /// The last label's id (-1 before the first).
    private(set) var lastID: Int32 = -1

    init() { last.reserveCapacity(64) }

    /// Whether `[s, e)` are the bytes of the last label.
    @inline(__always)
    func isLast(_ s: Pointer, _ e: Pointer) -> Bool {
        let n = e - s
        guard n == last.count else { return false }
        return last.withUnsafeBufferPointer { last in
            var i = 0
            while i < n && last[i] == s[i] { i += 1 }
            return i == n
        }
    }

    /// The id of the label `[s, e)` (not empty; checked as text by the caller), numbering a name
    /// not met before; it becomes the last label.
    @inline(never)
    mutating func intern(_ s: Pointer, _ e: Pointer) -> Int32 {
        let bytes = UnsafeBufferPointer(start: s, count: e - s)
        let name = String(decoding: bytes, as: UTF8.self)
        let id: Int32
        if let known = ids[name] {
            id = known
        } else {
            id = Int32(names.count)
            names.append(name)
            ids[name] = id
        }
        last.removeAll(keepingCapacity: true)
        last.append(contentsOf: bytes)
        lastID = id
        return id
    }
}
