import Foundation
import MotionCore
import MotionprepCLI
import Testing
@testable import MotionReport

@Suite struct ReportCommandTests {
    @Test func writesThePage() throws {
        let out = Fixture.temporaryDirectory("cli") + "/r.html"
        let status = MotionprepCommand.run(["report", try Fixture.dataset(), "-o", out, "--quiet", "--examples", "2"])
        #expect(status == .success)
        let html = try String(contentsOfFile: out, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!FileManager.default.fileExists(atPath: out + ".partial"))
    }

    @Test(arguments: [
        (["report"], MotionCore.ExitStatus.usage),
        (["report", "a", "b"], .usage),
        (["report", "/nonexistent/motionprep-dataset"], .noInput),
        (["report", "--exampels", "2", "x"], .usage),
        (["report", "x", "--examples", "99"], .usage),
        (["report", "x", "--max-recordings", "3"], .usage),
        (["report", "x", "--recordings", "p.yaml", "--max-recordings", "0"], .usage),
        (["report", "--help"], .success),
    ])
    func exitStatuses(args: [String], expected: MotionCore.ExitStatus) {
        #expect(MotionprepCommand.run(args) == expected)
    }

    @Test func aFolderWithoutManifestIsMissingInput() {
        let dir = Fixture.temporaryDirectory("empty")
        #expect(MotionprepCommand.run(["report", dir, "-o", dir + "/r.html"]) == .noInput)
        #expect(!FileManager.default.fileExists(atPath: dir + "/r.html"))
    }

    @Test func missingShardsAreMissingInput() throws {
        let dir = Fixture.temporaryDirectory("shards")
        var manifest = try String(contentsOfFile: try Fixture.dataset() + "/manifest.json", encoding: .utf8)
        manifest = manifest.replacingOccurrences(of: "\"storage\": \"hdf5\"", with: "\"storage\": \"shards\"")
        try manifest.write(toFile: dir + "/manifest.json", atomically: true, encoding: .utf8)
        #expect(throws: ReportError.self) { try Report.render(directory: dir) }
        #expect(MotionprepCommand.run(["report", dir, "-o", dir + "/r.html"]) == .noInput)
    }

    @Test func anUnknownStorageIsRefusedWithAClearMessage() throws {
        let dir = Fixture.temporaryDirectory("zarr")
        var manifest = try String(contentsOfFile: try Fixture.dataset() + "/manifest.json", encoding: .utf8)
        manifest = manifest.replacingOccurrences(of: "\"storage\": \"hdf5\"", with: "\"storage\": \"zarr\"")
        try manifest.write(toFile: dir + "/manifest.json", atomically: true, encoding: .utf8)
        #expect(MotionprepCommand.run(["report", dir, "-o", dir + "/r.html"]) == .dataError)
    }

    @Test func aManifestThatIsNotJSONIsBadData() {
        let dir = Fixture.temporaryDirectory("badjson")
        _ = FileManager.default.createFile(atPath: dir + "/manifest.json", contents: Data("{\"format\": ".utf8))
        #expect(MotionprepCommand.run(["report", dir, "-o", dir + "/r.html"]) == .dataError)
    }

    @Test func anUnwritableOutputCannotBeCreated() throws {
        #expect(MotionprepCommand.run(["report", try Fixture.dataset(), "-o", "/nonexistent/dir/r.html"]) == .cannotCreate)
    }
}
