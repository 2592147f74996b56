import Foundation
import MotionCore
import Testing
@testable import MotionReport

/// Headless Chromium renders the fixture's page; the screenshot must not be blank, and the dark
/// scheme must really be dark. Skipped, with a message, when `chromium` is not installed
/// (`apt-get install -y chromium`).
@Suite struct ScreenshotTests {
    static let chromium = Executable.find(["chromium", "chromium-browser", "google-chrome"])
    static let python = Executable.python

    @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install -y chromium); the screenshot test is skipped"),
          .enabled(if: python != nil, "no python3 to decode the PNG; the screenshot test is skipped"),
          arguments: [false, true])
    func pageRendersToANonBlankScreenshot(dark: Bool) throws {
        let dir = Fixture.temporaryDirectory("shot")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = dir + "/report.html", png = dir + "/shot.png"
        try Fixture.rendered.get().html.write(toFile: page, atomically: true, encoding: .utf8)
        var args = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(dir)/profile",
                    "--window-size=1200,1600", "--screenshot=\(png)"]
        if dark { args.append("--force-dark-mode") }
        _ = try Executable.run(Self.chromium!, args + ["file://" + page], timeoutSeconds: 120)
        try #require(FileManager.default.fileExists(atPath: png), "chromium wrote no screenshot")
        let out = try Executable.run(Self.python!, ["-c", PNGProbe.script, png], timeoutSeconds: 60)
        let f = out.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        try #require(f.count == 5, "unexpected probe output: \(out)")
        let (distinct, changed, r, g, b) = (f[0], f[1], f[2], f[3], f[4])
        #expect(distinct > 50, "a page of charts has many colours and edges, got \(distinct) distinct bytes")
        #expect(changed > 0.005, "more than 0.5 % of the filtered bytes are edges, got \(changed)")
        let luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
        if dark { #expect(luminance < 60, "dark scheme background \(r),\(g),\(b)") }
        else { #expect(luminance > 200, "light scheme background \(r),\(g),\(b)") }
    }
}

/// Inflates an 8-bit, non-interlaced RGB/RGBA PNG with Python's standard library (zlib) and
/// prints: the distinct byte values in the filtered scanlines, the fraction of non-zero bytes
/// there (a flat page filters to zeros), and the top-left pixel's r g b (the page background).
enum PNGProbe {
    static let script = #"""
import sys, struct, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
assert len(raw) == h * (stride + 1), 'truncated image data'
# Filtered scanlines without their filter-type bytes: flat areas filter to zeros, so a blank page
# has almost only zero bytes and few distinct values; a page of charts has edges everywhere.
pixels = b''.join(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)] for y in range(h))
distinct = len(set(pixels))
changed = (len(pixels) - pixels.count(0)) / len(pixels)
# Pixel (0, 0) is stored unfiltered under every filter type (its neighbours count as zero).
print(distinct, changed, raw[1], raw[2], raw[3])
"""#
}

/// Finding and running helper programs.
enum Executable {
    static func find(_ names: [String]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for name in names {
            for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
                return "\(dir)/\(name)"
            }
        }
        return nil
    }

    /// `$MOTIONPREP_PYTHON` (set by `make test`), else `python3` on the PATH (only the standard
    /// library is used).
    static var python: String? {
        if let p = ProcessInfo.processInfo.environment["MOTIONPREP_PYTHON"], FileManager.default.isExecutableFile(atPath: p) { return p }
        return find(["python3"])
    }

    /// Runs `path` with `arguments`, returns stdout; stderr is discarded. Kills it after
    /// `timeoutSeconds`.
    static func run(_ path: String, _ arguments: [String], timeoutSeconds: Double) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = DispatchTime.now() + timeoutSeconds
        let watchdog = DispatchWorkItem { if p.isRunning { p.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: watchdog)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        watchdog.cancel()
        guard p.terminationReason == .exit else { throw MotionError(.ioError, "\(path) was stopped after \(timeoutSeconds) s") }
        return String(decoding: data, as: UTF8.self)
    }
}
