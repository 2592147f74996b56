/// Small text helpers shared by modules that talk to people.
public enum Text {
    /// Levenshtein distance between two strings (by Unicode scalar).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                cur[j] = Swift.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&prev, &cur)
        }
        return prev[b.count]
    }

    /// The candidate closest to `word`, if it is close enough to be a likely typo
    /// (distance ≤ max(2, word.count / 3)).
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        var best: (String, Int)?
        for c in candidates {
            let d = editDistance(word.lowercased(), c.lowercased())
            if best == nil || d < best!.1 { best = (c, d) }
        }
        guard let (c, d) = best, d <= Swift.max(2, word.count / 3) else { return nil }
        return c
    }

    /// A list bounded for a message (docs/hardening.md, "Data safety: bounded work on odd input"):
    /// "a", "a and b", "a, b and c", ... up to `shown` items; with more, the first `shown` and
    /// "and N more" (`OutputFolder.list`'s shape), so that a million names make one short line.
    /// Only the items shown are read (`items` may be a lazy map over a million).
    /// `lastSeparator` joins the last two of a list shown whole (", " for a plain list).
    public static func bounded<C: Collection>(_ items: C, shown: Int = 5, lastSeparator: String = " and ") -> String where C.Element == String {
        let count = items.count
        let head = Array(items.prefix(Swift.min(count, shown)))
        switch count {
        case 0: return "none"
        case 1: return head[0]
        case ...shown: return head.dropLast().joined(separator: ", ") + lastSeparator + head.last!
        default: return head.joined(separator: ", ") + " and \(count - shown) more"
        }
    }

    /// `items` joined by ", " as a message lists names, but at most `shown` of them, then
    /// "… and N more": a list of 30,000 channels or files stays one short line ("" when empty).
    public static func joinedBounded<C: Collection>(_ items: C, shown: Int = 20) -> String where C.Element == String {
        let count = items.count
        let head = items.prefix(Swift.min(count, shown)).joined(separator: ", ")
        return count > shown ? head + ", … and \(count - shown) more" : head
    }

    /// `a`, `a or b`, `a, b or c` with each item in backticks.
    public static func alternatives(_ items: [String]) -> String {
        let q = items.map { "`\($0)`" }
        switch q.count {
        case 0: return ""
        case 1: return q[0]
        default: return q.dropLast().joined(separator: ", ") + " or " + q.last!
        }
    }

    /// Compares strings by their UTF-8 bytes (docs/inputs.md, "Recordings, subjects and channels": names sort by UTF-8 bytes).
    public static func utf8Less(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
