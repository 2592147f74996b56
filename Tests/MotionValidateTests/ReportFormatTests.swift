import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MotionCore
import MotionprepCLI
@testable import MotionValidate
import Testing

/// Text, JSON and JUnit output: every failure once, well-formed, properly escaped.
@Suite struct ReportFormatTests {
    /// A report with awkward text in it.
    static let sample = ValidationReport(
        dataset: "build/<walk>",
        checks: [
            CheckOutcome(id: .manifestParse, status: .passed, failures: [], skipReason: nil),
            CheckOutcome(id: .filesSHA256, status: .failed, failures: [
                ValidationFailure(check: .filesSHA256, file: "train.h5", message: "has SHA-256 \"a&b\" <x> 'y'\ttab\u{1}ctl"),
                ValidationFailure(check: .filesSHA256, file: "test.h5", message: "second\nline"),
            ], skipReason: nil),
            CheckOutcome(id: .normalizationStats, status: .skipped, failures: [], skipReason: "train & co < unreadable"),
        ],
        dataBytes: 2_000_000, windows: 10)

    @Test func textHasOneLinePerFailure() {
        let text = Self.sample.rendered(.text, timing: ValidationTiming(seconds: 0.5))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "build/<walk>/train.h5: files.sha256: has SHA-256 \"a&b\" <x> 'y'\ttab\u{1}ctl")
        #expect(lines[1] == "build/<walk>/test.h5: files.sha256: second")
        #expect(text.contains("build/<walk>: normalization.stats: skipped: train & co < unreadable"))
        #expect(text.hasSuffix("build/<walk>: FAILED: 3 checks, 1 passed, 1 failed, 1 skipped; read 2.0 MB, 10 windows in 0.50 s (4 MB/s)\n"))
    }

    @Test func jsonParsesBack() throws {
        let text = Self.sample.rendered(.json, timing: ValidationTiming(seconds: 0.5))
        let v = try JSONParser.parse(text: text)
        guard case .object(let o) = v, case .array(let checks)? = o["checks"], case .array(let failures)? = o["failures"],
              case .object(let summary)? = o["summary"] else { Issue.record("unexpected JSON \(text)"); return }
        #expect(o["passed"] == .bool(false))
        #expect(checks.count == 3)
        #expect(failures.count == 2)
        #expect(summary["mb_per_s"] == .double(4))
        #expect(summary["failed"] == .int(1))
    }

    @Test func junitIsWellFormedWithOneTestcasePerCheck() throws {
        let xml = Self.sample.rendered(.junit, timing: ValidationTiming(seconds: 0.5))
        final class Collector: NSObject, XMLParserDelegate {
            var elements: [(String, [String: String])] = []
            var text = ""
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) { elements.append((name, attributes)) }
            func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
        }
        let parser = XMLParser(data: Data(xml.utf8))
        let collector = Collector()
        parser.delegate = collector
        #expect(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "")\n\(xml)")
        let suite = collector.elements.first { $0.0 == "testsuite" }!.1
        #expect(suite["name"] == "motionprep validate")
        #expect(suite["tests"] == "3")
        #expect(suite["failures"] == "1")
        #expect(suite["skipped"] == "1")
        let cases = collector.elements.filter { $0.0 == "testcase" }.map(\.1)
        #expect(cases.map { $0["name"] } == ["manifest.parse", "files.sha256", "normalization.stats"])
        #expect(cases.allSatisfy { $0["classname"] == "dataset" })
        let failure = collector.elements.first { $0.0 == "failure" }!.1
        #expect(failure["message"] == "build/<walk>/train.h5: has SHA-256 \"a&b\" <x> 'y'\ttab\u{FFFD}ctl (and 1 more)")
        #expect(collector.text.contains("build/<walk>/test.h5: second\nline"))
        #expect(collector.elements.first { $0.0 == "skipped" }?.1["message"] == "train & co < unreadable")
    }

    @Test func realReportsRenderInEveryFormat() throws {
        let dir = Fixture.copy()
        try FileManager.default.removeItem(atPath: dir + "/test.h5")
        for format in ["text", "json", "junit"] {
            let (status, output) = try validate(dir, format: format)
            #expect(status == .checkFailed)
            #expect(output.contains("files.exist"))
        }
        let (_, xml) = try validate(dir, format: "junit")
        #expect(XMLParser(data: Data(xml.utf8)).parse())
        #expect(xml.contains("<testcase classname=\"dataset\" name=\"files.exist\">"))
        #expect(xml.contains("<failure message=\"\(dir)/test.h5: is listed in the manifest (split `test`) but does not exist\" type=\"files.exist\">"))
    }

    @Test func usageErrors() throws {
        let dir = Fixture.copy()
        #expect(MotionprepCommand.run(["validate", dir, "--format", "xml"]) == .usage)
        #expect(MotionprepCommand.run(["validate", dir, dir]) == .usage)
        #expect(MotionprepCommand.run(["validate", dir + "/missing"]) == .noInput)
        #expect(MotionprepCommand.run(["validate", dir, "--format", "junit"]) == .success)
    }
}

