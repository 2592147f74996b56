/// The block sizes every reader and the engine stream by (docs/streaming.md).
public enum StreamDefaults {
    /// Input bytes per block (8 MiB).
    public static let blockBytes = 8 << 20
    /// Streamed recordings smaller than this are parsed once and held in memory as blocks when
    /// a stage needs more than one pass (the anti-aliasing median), instead of being read again.
    package static let keepBlocksBytes = 64 << 20
}
