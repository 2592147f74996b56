import Foundation
import MotionCore
import Testing

@testable import MotionChecksum

@Suite struct SHA256VectorTests {
    // FIPS 180-2 / NIST CSRC example vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownVector(message: String, expected: String) {
        #expect(SHA256.hex(of: Array(message.utf8)) == expected)
    }

    @Test func millionAs() {
        var hasher = SHA256Hasher()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hasher.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func incrementalEqualsOneShotAtEverySplit() {
        let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let expected = SHA256.hex(of: message)
        for split in 0...message.count {
            var hasher = SHA256Hasher()
            hasher.update(Array(message[..<split]))
            message[split...].withUnsafeBytes { hasher.update($0) }
            #expect(hasher.finalizeHex() == expected, "split at \(split)")
        }
    }

    @Test func finalizeResetsToTheEmptyMessage() {
        var hasher = SHA256Hasher()
        hasher.update(Array("abc".utf8))
        _ = hasher.finalizeHex()
        #expect(hasher.finalizeHex() == SHA256.hex(of: []))
        hasher.update(Array("abc".utf8))
        #expect(hasher.finalizeHex() == SHA256.hex(of: Array("abc".utf8)))
    }

    @Test func copiesAreIndependent() {
        var first = SHA256Hasher()
        first.update(Array("ab".utf8))
        var second = first                       // shares the context until one of them writes
        second.update(Array("c".utf8))
        #expect(second.finalizeHex() == SHA256.hex(of: Array("abc".utf8)))
        #expect(first.finalizeHex() == SHA256.hex(of: Array("ab".utf8)))
    }
}

@Suite struct SHA256FileTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("motionprep-sha256-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func sha256sum(_ path: String) throws -> String? {
        let candidates = ["/usr/bin/sha256sum", "/bin/sha256sum"]
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        return text.split(separator: " ").first.map(String.init)
    }

    // Sizes around the 1 MiB read buffer, plus empty.
    @Test(arguments: [0, 1, 64, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 12345])
    func fileMatchesSha256sum(size: Int) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("data.bin").path
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<size).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let result = try SHA256.hexOfFile(path: path)
        #expect(result.bytes == size)
        #expect(result.hex == SHA256.hex(of: bytes))
        let reference = try #require(try sha256sum(path), "sha256sum (coreutils) is not installed")
        #expect(result.hex == reference)
    }

    @Test func missingFileIsNoInput() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("absent.bin").path
        do {
            _ = try SHA256.hexOfFile(path: path)
            Issue.record("expected an error")
        } catch let error as MotionError {
            #expect(error.exitStatus == .noInput)
            #expect(error.message == "cannot open `\(path)` to compute its SHA-256: No such file or directory")
        }
    }

    @Test func directoryIsIOError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            _ = try SHA256.hexOfFile(path: directory.path)
            Issue.record("expected an error")
        } catch let error as MotionError {
            #expect(error.exitStatus == .ioError)
            #expect(error.message.contains("Is a directory"))
        }
    }
}
