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

    /// True for a scalar that must not reach a terminal raw from a name: C0 controls (tab and
    /// newline included), DEL, C1 controls, the line and paragraph separators U+2028/U+2029 and
    /// the bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
    /// U+202A–U+202E, U+2066–U+2069), which can make text display as other text.
    public static func isUnsafeForTerminal(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `s` with every scalar that ``isUnsafeForTerminal(_:)`` written as a Swift escape
    /// (`\u{1B}`), so that a file name or label holding escape sequences prints as text and never
    /// drives the terminal (docs/hardening.md, "Data safety: names").
    public static func terminalSafe(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isUnsafeForTerminal) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if isUnsafeForTerminal(u) {
                out.append(contentsOf: "\\u{\(String(u.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// ``terminalSafe(_:)`` for each line of a multi-line text: its own line breaks are kept.
    public static func terminalSafeLines(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0 != "\n" && isUnsafeForTerminal($0) }) else { return s }
        return s.split(separator: "\n", omittingEmptySubsequences: false).map { terminalSafe(String($0)) }.joined(separator: "\n")
    }

    /// Orders strings by their UTF-8 bytes and tells apart strings that Swift's `==` calls equal
    /// because they are canonically equivalent (`café` in NFC and in NFD): file names on Linux
    /// are bytes, and two such names are two files.
    public struct Bytes: Hashable, Comparable, Sendable {
        public let bytes: [UInt8]
        public init(_ s: String) { bytes = Array(s.utf8) }
        public static func < (a: Bytes, b: Bytes) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
    }

    /// True when `a` and `b` are the same bytes (Swift's `==` also equates canonically
    /// equivalent strings).
    public static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }
}
