extension LabelEvents {
    /// Appends `other`'s events after these, its names numbered as they first occur here.
    package mutating func append(_ other: LabelEvents) {
        guard !other.times.isEmpty else { return }
        var ids = [Int32](repeating: -1, count: other.names.count)
        for (t, l) in zip(other.times, other.labels) {
            if ids[Int(l)] < 0 {
                let name = other.names[Int(l)]
                if let k = names.firstIndex(of: name) { ids[Int(l)] = Int32(k) } else { ids[Int(l)] = Int32(names.count); names.append(name) }
            }
            times.append(t)
            labels.append(ids[Int(l)])
        }
    }
}
