import Foundation
import Testing
import MotionCore
import MotionSynth

@Suite struct SynthErrorTests {
    @Test(arguments: [
        SynthOptions(outDirectory: "/tmp/x", subjects: 0),
        SynthOptions(outDirectory: "/tmp/x", minutes: 0),
        SynthOptions(outDirectory: "/tmp/x", minutes: .nan),
        SynthOptions(outDirectory: "/tmp/x", recordingsPerSubject: 0),
        SynthOptions(outDirectory: "/tmp/x", dropFraction: 1),
        SynthOptions(outDirectory: "/tmp/x", gapsPerMinute: -1),
    ])
    func impossibleOptionsAreUsageErrors(options: SynthOptions) {
        #expect(throws: MotionError.self) { try Synth.write(options) }
        do {
            _ = try Synth.write(options)
        } catch let error as MotionError {
            #expect(error.exitStatus == .usage)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func folderBlockedByAFileCannotBeCreated() throws {
        try withTemporaryDirectory { dir in
            let blocker = dir + "/blocker"
            _ = FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
            do {
                _ = try Synth.write(SynthOptions(outDirectory: blocker + "/out", subjects: 1, minutes: 0.1))
                Issue.record("expected an error")
            } catch let error as MotionError {
                #expect(error.exitStatus == .cannotCreate)
                #expect(error.message.contains(blocker), "\(error.message)")
            }
        }
    }

    @Test func fileBlockedByAFolderCannotBeCreated() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/out/subject01/rec-01.csv",
                                                    withIntermediateDirectories: true)
            do {
                _ = try Synth.write(SynthOptions(outDirectory: dir + "/out", subjects: 1, minutes: 0.1))
                Issue.record("expected an error")
            } catch let error as MotionError {
                #expect(error.exitStatus == .cannotCreate)
                #expect(error.message.contains("subject01/rec-01.csv"), "\(error.message)")
            }
        }
    }
}
