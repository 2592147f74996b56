/// The files motionprep writes beside a dataset's, by name and mark, which the ownership checks
/// recognise by content (docs/hardening.md, "Whose folder is it"). The job's types (`RunState`,
/// `PartManifest`, `RecordStore`) write them under these names.
package enum OutputNames {
    /// `--resume`'s state in a `DIR.partial` folder.
    package static let runState = "state.json"
    /// A `--worker` part's manifest, and the SHA-256 of it beside it.
    package static let part = "part.json"
    package static let partChecksums = "part.json.sha256"
    /// The first five bytes of every record file, whatever its format's version.
    package static let recordMagicPrefix: [UInt8] = Array("MPREC".utf8)
    /// The last eight bytes of a complete record file.
    package static let recordEndMagic: [UInt8] = Array("MPRECEND".utf8)
}
