/// The samples of one stream as columns: `width` `Double` columns plus one `Int32` column.
///
/// Rows are written into a small column-major block that stays in cache (`set`, then `commit`)
/// and move into the final arrays a block at a time, one bulk append per column. The arrays are
/// what the parser hands out at the end, so each sample is copied once, from a hot block, and
/// the output memory is touched once (no row-major buffer to transpose, no final copy).
///
/// Not an owner of its block: whoever holds it calls `deallocate()` exactly once.
struct _ColumnBlock {
    /// Rows per block: 10 columns × 1024 × 8 bytes = 80 KiB for the widest stream (D).
    static let rows = 1024

    /// Number of `Double` columns.
    let width: Int
    /// `width` columns of `rows` doubles each, column-major.
    private let block: UnsafeMutablePointer<Double>
    private let intBlock: UnsafeMutablePointer<Int32>
    /// Rows written to the block and not yet moved to the arrays.
    private(set) var pending = 0
    private(set) var doubles: [[Double]]
    private(set) var ints: [Int32] = []

    init(width: Int) {
        self.width = width
        block = .allocate(capacity: width * Self.rows)
        intBlock = .allocate(capacity: Self.rows)
        doubles = Array(repeating: [], count: width)
    }

    /// Rows committed so far.
    var count: Int { ints.count + pending }

    /// Writes column `column` of the row being built; nothing counts until `commit`.
    @inline(__always)
    func set(_ column: Int, _ value: Double) {
        block[column &* Self.rows &+ pending] = value
    }

    /// Where `set` writes column 0 of the row being built; column c is `rows × c` further.
    @inline(__always)
    func rowStart() -> UnsafeMutablePointer<Double> { block + pending }

    /// Counts the row being built (its `set` values and `int`) as appended.
    @inline(__always)
    mutating func commit(_ int: Int32) {
        intBlock[pending] = int
        pending &+= 1
        if pending == Self.rows { flush() }
    }

    /// Moves the block's rows into the arrays.
    @inline(never)
    mutating func flush() {
        guard pending > 0 else { return }
        for c in 0..<width {
            doubles[c].append(contentsOf: UnsafeBufferPointer(start: block + c * Self.rows, count: pending))
        }
        ints.append(contentsOf: UnsafeBufferPointer(start: intBlock, count: pending))
        pending = 0
    }

    /// Makes room for `total` rows in every array.
    mutating func reserve(_ total: Int) {
        guard total > ints.capacity else { return }
        for c in 0..<width { doubles[c].reserveCapacity(total) }
        ints.reserveCapacity(total)
    }

    /// Every row, as arrays (moved out; the block is left empty).
    mutating func take() -> (doubles: [[Double]], ints: [Int32]) {
        flush()
        defer {
            doubles = Array(repeating: [], count: width)
            ints = []
        }
        return (doubles, ints)
    }

    mutating func deallocate() {
        block.deallocate()
        intBlock.deallocate()
    }
}
