import Testing
@testable import MotionConfig

/// Every damaged variant of a valid file either loads or reports problems, never traps, and
/// every problem names the file.
private func checkLoadsOrReports(_ text: String) {
    do {
        _ = try load(text)
    } catch let error as PipelineFileError {
        #expect(!error.issues.isEmpty)
        for issue in error.issues { #expect(issue.message.contains("walk.yaml"), "\(issue.message)") }
        let positions = error.issues.map { ($0.location.line ?? 0, $0.location.column ?? 0) }
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 <= $1 })
    } catch {
        Issue.record("unexpected error \(error)")
    }
}

@Test func everyLineDeletedFromTheSpecExample() {
    let lines = specExample.split(separator: "\n", omittingEmptySubsequences: false)
    for i in lines.indices {
        var copy = lines
        copy.remove(at: i)
        checkLoadsOrReports(copy.joined(separator: "\n"))
    }
}

@Test func everyPrefixOfTheSpecExample() {
    let chars = Array(specExample)
    for n in stride(from: 0, through: chars.count, by: 3) {
        checkLoadsOrReports(String(chars[..<n]))
    }
}

@Test(arguments: ["1e308", "1e-308", "-0", "0x7fffffffffffffff", "9223372036854775807", ".inf", ".nan", "-.inf"])
func extremeNumbersInEveryNumericSetting(value: String) {
    for key in ["rate_hz", "max_gap_s"] {
        checkLoadsOrReports(edited("rate_hz: 50", "rate_hz: 50\n  \(key): \(value)".replacing("rate_hz: 50\n  rate_hz", with: "rate_hz")))
    }
    for key in ["length_s", "length_samples", "stride_s", "stride_samples"] {
        checkLoadsOrReports(edited("length_s: 2.56", key.hasPrefix("length") ? "\(key): \(value)" : "length_s: 2.56\n  \(key): \(value)"))
    }
    for key in ["seed", "folds"] {
        checkLoadsOrReports(minimalPipeline + "split:\n  \(key): \(value)\n")
    }
}
