/// Copies raw little-endian bytes into typed arrays (the only unsafe code of the shard reader).
enum _ShardBytes {
    static func load<T: BitwiseCopyable>(_: T.Type, from bytes: [UInt8]) -> [T] {
        let n = bytes.count / MemoryLayout<T>.stride
        precondition(n * MemoryLayout<T>.stride == bytes.count, "_ShardBytes: \(bytes.count) bytes is not a whole number of \(T.self)")
        return [T](unsafeUninitializedCapacity: n) { out, initialized in
            bytes.withUnsafeBytes { src in
                UnsafeMutableRawBufferPointer(out).copyMemory(from: src)
            }
            initialized = n
        }
    }
}
