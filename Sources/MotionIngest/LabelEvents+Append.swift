/// Another list's label ids mapped into a list of names, each name numbered as it first occurs
/// there: the one way the label ids of blocks, files and recordings are joined (a block's
/// `LabelEvents` into a file's, a file's into a recording's label fold).
package struct LabelIDMap {
    private let from: [String]
    private var ids: [Int32]

    /// A map from the ids of `names` (the events' own).
    package init(from names: [String]) {
        from = names
        ids = [Int32](repeating: -1, count: names.count)
    }

    /// The id in `names` of the name `l` stands for, appending the name when `names` has none.
    @inline(__always)
    package mutating func id(_ l: Int32, in names: inout [String]) -> Int32 {
        let i = Int(l)
        if ids[i] >= 0 { return ids[i] }
        let name = from[i]
        let id: Int32
        if let k = names.firstIndex(of: name) { id = Int32(k) } else { id = Int32(names.count); names.append(name) }
        ids[i] = id
        return id
    }
}

extension LabelEvents {
    /// Appends `other`'s events after these, its names numbered as they first occur here.
    package mutating func append(_ other: LabelEvents) {
        guard !other.times.isEmpty else { return }
        var map = LabelIDMap(from: other.names)
        for (t, l) in zip(other.times, other.labels) {
            times.append(t)
            labels.append(map.id(l, in: &names))
        }
    }
}
