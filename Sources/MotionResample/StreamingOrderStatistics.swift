#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The exact median of a long sequence of positive doubles fed in several identical passes,
/// in bounded memory (issue 8: a streamed stream's median sampling interval, which designs its
/// anti-aliasing filter). Each pass narrows the middle rank(s) to the values sharing a 20-bit
/// longer prefix of their bit pattern (positive doubles order like their bits), or, once few
/// enough values share it, collects and sorts them; the first pass also guesses the median's
/// bucket from its first values and collects that bucket, which usually makes it the only pass.
/// The streamed anti-aliasing median: `StreamingOrderStatistics` with the middle rank(s).
public typealias StreamingMedian = StreamingOrderStatistics

/// Exact order statistics (the values at given ranks of the sorted values) of non-negative
/// doubles fed in passes, in bounded memory: each pass narrows every rank's value by 20 more
/// bits of its bit pattern (non-negative doubles order like their bits), until few enough
/// values share the prefix to be collected and selected. `median` is the anti-aliasing median
/// (docs/streaming.md); `inspect` asks for the ranks of numpy's linear percentiles.
public struct StreamingOrderStatistics: Sendable {
    static let digitBits = 20
    /// Most values collected for one rank (4 Mi values, 32 MiB) before narrowing further.
    let collectLimit: Int

    private struct Target: Sendable {
        /// The rank asked for, among all values.
        var original: Int
        /// The rank among the values sharing `prefix`.
        var rank: Int
        var prefix: UInt64 = 0
        var bits = 0
        var collecting = false
        var histogram: [UInt32] = []
        var collected: [Double] = []
        var value: Double?
    }

    private var passes = 0
    /// Values fed in the first pass.
    public private(set) var count = 0
    /// The ranks to find, from the number of values (sorted, unique, each in `0 ..< count`).
    private let ranksFor: @Sendable (Int) -> [Int]
    private var targets: [Target] = []
    private var firstHistogram = [UInt32](repeating: 0, count: 1 << 20)
    // The first pass also guesses the median's bucket from its first `guessAfter` values and
    // collects every value of that bucket and its two neighbours: when the guess holds (it
    // nearly always does: a stream's rate does not drift by 0.4 %), the first pass is the last.
    let guessAfter: Int
    private var early: [Double]? = []
    /// The guessed buckets: `guessLow ... guessLow + guessSpan` (a range test, not a set's hash per value).
    private var guessLow: UInt64 = 0
    private var guessSpan: UInt64 = 0
    private var hasGuess = false
    private var guessed: [Double] = []
    private var guessAbandoned = false

    /// - Parameters:
    ///   - collectLimit: most values collected for one rank (tests set it small).
    ///   - guessAfter: values seen before the first pass guesses the median's bucket (≥ 1).
    ///   - ranks: the ranks to find, given the number of values; by default the middle one
    ///     (odd count) or two (even count).
    public init(collectLimit: Int = 1 << 22, guessAfter: Int = 1 << 16,
                ranks: @escaping @Sendable (_ count: Int) -> [Int] = StreamingOrderStatistics.middleRanks) {
        self.collectLimit = collectLimit
        self.guessAfter = Swift.max(1, guessAfter)
        ranksFor = ranks
    }

    /// The median's ranks.
    public static let middleRanks: @Sendable (Int) -> [Int] = { n in n % 2 == 1 ? [n / 2] : [n / 2 - 1, n / 2] }

    /// The value of rank `rank` (one of those asked for) once `needsPass` is false.
    public func value(rank: Int) -> Double {
        targets.first { $0.original == rank }!.value!
    }

    /// Whether another pass is needed.
    public var needsPass: Bool { passes == 0 || targets.contains { $0.value == nil } }

    /// The median once `needsPass` is false (0 when no value was fed, as `Antialias.medianInterval`).
    public var median: Double {
        guard count > 0 else { return 0 }
        let v = targets.map { $0.value! }
        return v.count == 1 ? v[0] : (v[0] + v[1]) / 2
    }

    /// Feeds one value of the current pass (every pass must feed the same values).
    @inline(__always)
    public mutating func add(_ v: Double) {
        let u = v.bitPattern
        if passes == 0 {
            count += 1
            let bucket = u >> UInt64(64 - Self.digitBits)
            firstHistogram[Int(bucket)] &+= 1
            if early != nil {
                early!.append(v)
                if early!.count == guessAfter { makeGuess() }
            } else if !guessAbandoned && hasGuess && bucket &- guessLow <= guessSpan {
                if guessed.count < collectLimit {
                    guessed.append(v)
                } else {
                    guessAbandoned = true
                    guessed = []
                }
            }
            return
        }
        for k in targets.indices where targets[k].value == nil {
            let bits = targets[k].bits
            guard u >> UInt64(64 - bits) == targets[k].prefix else { continue }
            if targets[k].collecting {
                targets[k].collected.append(v)
            } else {
                let digit = Swift.min(Self.digitBits, 64 - bits)
                let shift = 64 - bits - digit
                targets[k].histogram[Int((u >> UInt64(shift)) & ((1 << UInt64(digit)) - 1))] &+= 1
            }
        }
    }

    /// The bucket of the first values' median, and its neighbours; keeps the early values in them.
    private mutating func makeGuess() {
        var values = early!
        let middle = values.withUnsafeMutableBufferPointer { Antialias.select($0, $0.count / 2) }
        let b = middle.bitPattern >> UInt64(64 - Self.digitBits)
        guessLow = b > 0 ? b - 1 : 0
        guessSpan = b > 0 ? 2 : 1
        hasGuess = true
        let low = guessLow, span = guessSpan
        guessed = early!.filter { ($0.bitPattern >> UInt64(64 - Self.digitBits)) &- low <= span }
        early = nil
    }

    /// Ends a pass.
    public mutating func endPass() {
        if passes == 0 {
            passes = 1
            guard count > 0 else { return }
            let ranks = Array(Set(ranksFor(count).filter { (0..<count).contains($0) })).sorted()
            if let all = early {
                // Fewer values than the guess needs: they are all here.
                var values = all
                targets = ranks.map { r in
                    var t = Target(original: r, rank: r)
                    t.value = values.withUnsafeMutableBufferPointer { Antialias.select($0, r) }
                    return t
                }
                early = nil
                return
            }
            for r in ranks {
                var t = Target(original: r, rank: r)
                narrow(&t, histogram: firstHistogram, digit: Self.digitBits)
                if t.value == nil && !guessAbandoned && hasGuess && t.bits == Self.digitBits && t.prefix &- guessLow <= guessSpan {
                    // Every value of this bucket was collected: no second pass.
                    var bucket = guessed.filter { $0.bitPattern >> UInt64(64 - Self.digitBits) == t.prefix }
                    let rank = t.rank
                    t.value = bucket.withUnsafeMutableBufferPointer { Antialias.select($0, rank) }
                    t.collecting = false
                    t.collected = []
                    t.histogram = []
                }
                targets.append(t)
            }
            firstHistogram = []
            guessed = []
            return
        }
        passes += 1
        for k in targets.indices where targets[k].value == nil {
            if targets[k].collecting {
                let rank = targets[k].rank
                targets[k].value = targets[k].collected.withUnsafeMutableBufferPointer { Antialias.select($0, rank) }
                targets[k].collected = []
            } else {
                let h = targets[k].histogram
                narrow(&targets[k], histogram: h, digit: Swift.min(Self.digitBits, 64 - targets[k].bits))
            }
        }
    }

    /// Picks the bucket of `t.rank` in `histogram` (the values sharing `t.prefix`, by their next
    /// `digit` bits) and prepares the next pass.
    private func narrow(_ t: inout Target, histogram: [UInt32], digit: Int) {
        var below = 0
        var d = 0
        while below + Int(histogram[d]) <= t.rank {
            below += Int(histogram[d])
            d += 1
        }
        let inBucket = Int(histogram[d])
        t.rank -= below
        t.prefix = (t.prefix << UInt64(digit)) | UInt64(d)
        t.bits += digit
        if t.bits == 64 {
            t.value = Double(bitPattern: t.prefix)
        } else if inBucket <= collectLimit {
            t.collecting = true
            t.collected.reserveCapacity(inBucket)
            t.histogram = []
        } else {
            t.histogram = [UInt32](repeating: 0, count: 1 << Swift.min(Self.digitBits, 64 - t.bits))
        }
    }
}
