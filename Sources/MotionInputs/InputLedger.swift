import Foundation
import MotionChecksum
import MotionConfig
import MotionCore

/// What an input file is to a run: the manifest's `inputs[].role`.
package enum InputRole: String, Sendable, CaseIterable {
    /// A file of a recording (matched by `inputs[].paths`).
    case recording
    /// The `labels.path` file of `labels: {from: intervals}`.
    case labels
    /// An attribute file of an IIO `layout` folder (a copy of the device's sysfs folder).
    case iioLayout = "iio_layout"

    /// Manifest order: recordings, labels, layout files.
    package var order: Int { Self.allCases.firstIndex(of: self)! }
}

/// Every file a run read, each hashed (SHA-256) from exactly the bytes that were parsed, as the
/// readers hand them over (`FileReadObserver`); docs/hardening.md, "Data safety: provenance".
///
/// Each recording gets its own ledger whose `parent` is the run's: a file read more than once
/// (a streamed recording reads its files in several passes; a layout folder is read for the plan
/// and for every dump) must give the same identity at every open and the same bytes at every
/// complete read, or the run fails naming it ("changed as we read it", exit 74). Thread-safe.
package final class InputLedger: @unchecked Sendable {
    private struct Read {
        var role: InputRole
        var bytes: Int
        var sha256: String
    }

    private let lock = NSLock()
    private let parent: InputLedger?
    /// The pipeline file's folder: manifest paths are relative to it.
    package let baseDirectory: String
    /// The identity of each path at its first open.
    private var identities: [String: FileIdentity] = [:]
    /// Each path read to its end.
    private var reads: [String: Read] = [:]

    /// Called once, after the first chunk of the first recording file read (`RunOptions.checkpoint`'s
    /// `input-read`, for the changed-while-read tests).
    private let onFirstBytes: (@Sendable () -> Void)?
    private var heardBytes = false

    package init(baseDirectory: String, parent: InputLedger? = nil, onFirstBytes: (@Sendable () -> Void)? = nil) {
        self.baseDirectory = baseDirectory
        self.parent = parent
        self.onFirstBytes = onFirstBytes
    }

    /// A recording file's chunk was read.
    fileprivate func heard() {
        if let parent { return parent.heard() }
        guard let onFirstBytes else { return }
        lock.lock()
        let first = !heardBytes
        heardBytes = true
        lock.unlock()
        if first { onFirstBytes() }
    }

    /// A child ledger for one recording.
    package func child() -> InputLedger { InputLedger(baseDirectory: baseDirectory, parent: self) }

    /// The observer to hand a reader of files of `role`.
    package func observer(_ role: InputRole) -> any FileReadObserver { Observer(ledger: self, role: role) }

    fileprivate func opened(path: String, displayPath: String, identity: FileIdentity?) throws {
        try parent?.opened(path: path, displayPath: displayPath, identity: identity)
        guard let identity else { return }
        lock.lock()
        defer { lock.unlock() }
        if let first = identities[path], first != identity {
            throw FileIdentity.changedError(displayPath, "this run read it before, and since then \(identity.difference(from: first))")
        }
        identities[path] = identity
    }

    fileprivate func finished(path: String, displayPath: String, role: InputRole, bytes: Int, sha256: String) throws {
        try parent?.finished(path: path, displayPath: displayPath, role: role, bytes: bytes, sha256: sha256)
        lock.lock()
        defer { lock.unlock() }
        if let earlier = reads[path], earlier.bytes != bytes || earlier.sha256 != sha256 {
            throw FileIdentity.changedError(displayPath, "two reads of it by this run gave different bytes: \(earlier.bytes) bytes, sha256 \(earlier.sha256.prefix(12))…, then \(bytes) bytes, \(sha256.prefix(12))…")
        }
        if reads[path] == nil || role.order < reads[path]!.role.order { reads[path] = Read(role: role, bytes: bytes, sha256: sha256) }
    }

    private func entry(_ path: String, _ read: Read, inputIndex: Int) -> InputEntry {
        InputEntry(inputIndex: inputIndex, path: PathText.relative(path, to: baseDirectory), bytes: read.bytes, sha256: read.sha256,
                   role: read.role)
    }

    /// The entries of every file read with a role other than `recording`, sorted by path.
    package func otherEntries() -> [InputEntry] {
        lock.lock()
        defer { lock.unlock() }
        return reads.filter { $0.value.role != .recording }.map { entry($0.key, $0.value, inputIndex: -1) }.sorted(by: InputEntry.manifestOrder)
    }

    /// A recording's inputs as its record and the manifest list them: every file of `source` (in
    /// its order) as it was read, then the other files read for it (layout folder files).
    /// A file of the recording that no reader needed (an IIO dump of an input without a kept
    /// channel) is hashed on its own, as it shaped nothing.
    package func inputs(for source: RecordingSource) throws -> [InputEntry] {
        var out: [InputEntry] = []
        for f in source.files {
            lock.lock()
            let read = reads[f.path]
            lock.unlock()
            if let read {
                out.append(InputEntry(inputIndex: f.inputIndex, path: f.manifestPath, bytes: read.bytes, sha256: read.sha256, role: .recording))
            } else {
                let (hex, bytes) = try SHA256.hexOfFile(path: f.path)
                out.append(InputEntry(inputIndex: f.inputIndex, path: f.manifestPath, bytes: bytes, sha256: hex, role: .recording))
            }
        }
        return out + otherEntries()
    }

    private struct Observer: FileReadObserver {
        let ledger: InputLedger
        let role: InputRole

        func opened(path: String, displayPath: String, identity: FileIdentity?) throws -> any FileReadTap {
            try ledger.opened(path: path, displayPath: displayPath, identity: identity)
            return Tap(ledger: ledger, role: role, path: path, displayPath: displayPath)
        }
    }

    private final class Tap: FileReadTap {
        let ledger: InputLedger
        let role: InputRole
        let path: String
        let displayPath: String
        var hasher = SHA256Hasher()

        init(ledger: InputLedger, role: InputRole, path: String, displayPath: String) {
            self.ledger = ledger
            self.role = role
            self.path = path
            self.displayPath = displayPath
        }

        func consume(_ bytes: UnsafeRawBufferPointer) {
            hasher.update(bytes)
            if role == .recording { ledger.heard() }
        }

        func finished(bytes: Int) throws {
            try ledger.finished(path: path, displayPath: displayPath, role: role, bytes: bytes, sha256: hasher.finalizeHex())
        }
    }
}

extension InputEntry {
    /// The manifest's order: by role (recording, labels, layout), then input, then path by UTF-8 bytes.
    package static func manifestOrder(_ a: InputEntry, _ b: InputEntry) -> Bool {
        if a.role != b.role { return a.role.order < b.role.order }
        if a.inputIndex != b.inputIndex { return a.inputIndex < b.inputIndex }
        return Text.utf8Less(a.path, b.path)
    }
}
