/// Channels grouped into sensors for the example charts: `acc_x acc_y acc_z acc_mag` → one
/// chart "acc" with lines x, y, z, mag. Adjacent channels without `_` that share a unit
/// (`pitch roll yaw`) form one group named after them ("pitch/roll/yaw").
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
            if let last = groups.indices.last, groups[last].unit == c.unit, groups[last].prefix == prefix,
               groups[last].channels.count < maxLines {
                groups[last].channels.append(i)
                groups[last].labels.append(label)
                if prefix == nil { groups[last].name = groups[last].labels.joined(separator: "/") }
                continue
            }
            groups.append(SensorGroup(name: prefix ?? label, unit: c.unit, channels: [i], labels: [label], prefix: prefix))
        }
        return groups
    }
}
