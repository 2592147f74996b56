import MotionCore
@testable import MotionIngest

/// Reads a MotionCollector file held in a string, fed all at once.
func readText(_ text: String, units: UnitSystem = .native, keep: Set<String>? = nil,
              path: String = "rec.csv") throws -> MotionCollectorFile {
    try MotionCollectorReader.read(chunks: [Array(text.utf8)], displayPath: path, units: units, keep: keep)
}

/// The message of the `IngestError` that `body` throws, or nil when it throws nothing.
func ingestErrorMessage(_ body: () throws -> Void) -> (message: String, status: MotionCore.ExitStatus)? {
    do {
        try body()
        return nil
    } catch let error as IngestError {
        return (error.message, error.exitStatus)
    } catch {
        return ("unexpected error type: \(error)", .success)
    }
}
