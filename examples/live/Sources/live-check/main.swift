// live-check DATASET_DIR VECTORS.json
//
// What an app's unit test does on the device (docs/live.md, "Test vectors"): replays the test
// vectors `motionprep live-vectors` wrote through MotionLive, configured from the dataset's
// manifest, and compares the windows with the dataset's bit for bit. Prints one line of JSON
// with the counts and the first difference; exits 0 when every window is equal, 1 otherwise.
import Foundation
import MotionLive

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("live-check: \(message)\n".utf8))
    exit(2)
}

let args = Array(CommandLine.arguments.dropFirst())
guard args.count == 2 else { fail("usage: live-check DATASET_DIR VECTORS.json") }
do {
    let configuration = try LiveConfiguration(contentsOf: args[0])
    let vectors = try LiveVectors(contentsOf: args[1])
    let r = try vectors.check(configuration)
    let difference = r.firstDifference.map { "\"\($0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"" } ?? "null"
    print("{\"recording\": \"\(vectors.recording)\", \"windows_expected\": \(r.windowsExpected), \"windows_got\": \(r.windowsGot), \"windows_equal\": \(r.windowsEqual), \"rows_expected\": \(r.rowsExpected), \"rows_got\": \(r.rowsGot), \"rows_equal\": \(r.rowsEqual), \"first_difference\": \(difference)}")
    exit(r.passed ? 0 : 1)
} catch {
    fail("\(error)")
}
