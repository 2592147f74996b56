import MotionDataset

/// Channels grouped into sensors for the example charts: `acc_x acc_y acc_z … acc_mag` → one
/// chart "acc" with lines x, y, z, mag (channels with the same prefix and unit join a group even
/// when other channels sit between them, as the magnitude channels do). Adjacent channels without
/// `_` that share a unit (`pitch roll yaw`) form one group named after them ("pitch/roll/yaw").
struct SensorGroup: Equatable {
    /// The chart title, e.g. "acc" or "pitch/roll/yaw".
    var name: String
    var unit: String
    /// Indices into the channel list, in channel order.
    var channels: [Int]
    /// Legend labels, e.g. "x", "y", "z", "mag".
    var labels: [String]
    /// The channels' shared prefix (`acc`), or `nil` for channels without one.
    var prefix: String?

    /// At most this many lines per chart (more are split into further charts).
    static let maxLines = 6

    static func make(_ channels: [DatasetManifest.Channel]) -> [SensorGroup] {
        var groups: [SensorGroup] = []
        for (i, c) in channels.enumerated() {
            var prefix: String? = nil
            var label = c.name
            if let u = c.name.lastIndex(of: "_"), u != c.name.startIndex, c.name.index(after: u) != c.name.endIndex {
                prefix = String(c.name[..<u])
                label = String(c.name[c.name.index(after: u)...])
            }
            let join = prefix != nil
                ? groups.firstIndex { $0.prefix == prefix && $0.unit == c.unit && $0.channels.count < maxLines }
                : groups.indices.last.flatMap { groups[$0].prefix == nil && groups[$0].unit == c.unit && groups[$0].channels.count < maxLines ? $0 : nil }
            if let g = join {
                groups[g].channels.append(i)
                groups[g].labels.append(label)
                if prefix == nil { groups[g].name = groups[g].labels.joined(separator: "/") }
                continue
            }
            groups.append(SensorGroup(name: prefix ?? label, unit: c.unit, channels: [i], labels: [label], prefix: prefix))
        }
        return groups
    }
}
