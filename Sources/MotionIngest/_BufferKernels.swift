#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A manually managed growable buffer of trivial values (`Double`, `Int32`): the per-row appends
/// of the parser without an array's uniqueness check per append.
///
/// Not an owner: whoever holds it calls `deallocate()` exactly once (copies share the memory).
struct _GrowableBuffer<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>? = nil
    private(set) var count = 0
    private(set) var capacity = 0

    /// Makes room for at least `minimumCapacity` elements in total.
    mutating func reserve(_ minimumCapacity: Int) {
        guard minimumCapacity > capacity else { return }
        let bytes = minimumCapacity * MemoryLayout<Element>.stride
        guard let raw = realloc(base.map(UnsafeMutableRawPointer.init), bytes) else {
            fatalError("_GrowableBuffer: out of memory growing to \(bytes) bytes")
        }
        base = raw.bindMemory(to: Element.self, capacity: minimumCapacity)
        capacity = minimumCapacity
    }

    /// Makes room for `extra` more elements, doubling the capacity when it grows.
    @inline(__always)
    mutating func ensureSpare(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    @inline(never)
    private mutating func grow(_ minimum: Int) {
        reserve(Swift.max(minimum, capacity * 2, 256))
    }

    /// Writes `value` at `count + offset` (within the spare room made by `ensureSpare`) without
    /// changing `count`.
    @inline(__always)
    func setSpare(_ offset: Int, _ value: Element) {
        base.unsafelyUnwrapped[count + offset] = value
    }

    /// Counts `n` spare elements written with `setSpare` as appended.
    @inline(__always)
    mutating func commit(_ n: Int) {
        count += n
    }

    @inline(__always)
    mutating func append(_ value: Element) {
        ensureSpare(1)
        base.unsafelyUnwrapped[count] = value
        count += 1
    }

    /// The elements as an array (a copy).
    func toArray() -> [Element] {
        guard let base, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Every `stride`-th element starting at `offset`, as an array: one column of row-major data.
    func column(_ offset: Int, stride: Int) -> [Element] {
        let rows = count / stride
        guard let base, rows > 0 else { return [] }
        return [Element](unsafeUninitializedCapacity: rows) { out, initialized in
            var p = base + offset
            for i in 0..<rows {
                out[i] = p.pointee
                p += stride
            }
            initialized = rows
        }
    }

    mutating func deallocate() {
        free(base.map(UnsafeMutableRawPointer.init))
        base = nil
        count = 0
        capacity = 0
    }
}
