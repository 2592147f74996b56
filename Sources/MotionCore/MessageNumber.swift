/// `50` rather than `50.0` in messages.
package enum MessageNumber {
    package static func number(_ d: Double) -> String {
        d == d.rounded() && Swift.abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
    }
}
