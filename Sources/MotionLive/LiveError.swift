#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MotionCore

/// Why the live library refused a manifest, a setting or a sample: one sentence for the app's
/// developer (what was wrong, the value, and what is accepted).
public struct LiveError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Reads a whole file (the manifest), or nil.
enum LiveFile {
    static func read(_ path: String) -> [UInt8]? {
        (try? RegularFile.contents(atPath: path)) ?? nil
    }
}
