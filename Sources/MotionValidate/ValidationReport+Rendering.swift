import Foundation
import MotionCore

/// The output formats of `motionprep validate DATASET_DIR --format …`.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// One line per failure (`DIR/file: check: message`), then a summary line.
    case text
    /// One JSON document with every check, its status and failures, and a summary.
    case json
    /// JUnit XML: one testsuite, one testcase per check, a `<failure>` per failed check.
    case junit
}

/// Timing the caller measured (the library reads no clock).
public struct ValidationTiming: Sendable, Equatable {
    /// Wall-clock seconds the validation took.
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }
}

extension ValidationReport {
    /// Data throughput in MB/s (10^6 bytes) over `timing`, or nil when no time was measured.
    public func megabytesPerSecond(_ timing: ValidationTiming?) -> Double? {
        guard let t = timing, t.seconds > 0 else { return nil }
        return Double(dataBytes) / 1e6 / t.seconds
    }

    var failedCount: Int { checks.count { $0.status == .failed } }
    var skippedCount: Int { checks.count { $0.status == .skipped } }

    /// The report in `format`, ending with a newline.
    public func rendered(_ format: ReportFormat, timing: ValidationTiming? = nil) -> String {
        switch format {
        case .text: return text(timing)
        case .json: return json(timing).pretty() + "\n"
        case .junit: return junit(timing)
        }
    }

    /// A path inside the dataset as the user would type it.
    func displayPath(_ file: String) -> String {
        if file == "." { return dataset }
        return dataset.hasSuffix("/") ? dataset + file : dataset + "/" + file
    }

    /// The summary sentence: "12 checks: 10 passed, 1 failed, 1 skipped; 3 files, 1.4 MB, 277 windows in 0.02 s (70.0 MB/s)".
    public func summary(_ timing: ValidationTiming?) -> String {
        let passedCount = checks.count - failedCount - skippedCount
        var s = "\(passed ? "ok" : "FAILED"): \(checks.count) checks, \(passedCount) passed, \(failedCount) failed"
        if skippedCount > 0 { s += ", \(skippedCount) skipped" }
        s += "; read \(String(format: "%.1f", Double(dataBytes) / 1e6)) MB, \(windows) windows"
        if let t = timing {
            s += " in \(String(format: "%.2f", t.seconds)) s"
            if let rate = megabytesPerSecond(t) { s += " (\(String(format: "%.0f", rate)) MB/s)" }
        }
        return s
    }

    private func text(_ timing: ValidationTiming?) -> String {
        var out = ""
        for f in failures {
            out += "\(displayPath(f.file)): \(f.check): \(f.message)\n"
        }
        for c in checks where c.status == .skipped {
            out += "\(dataset): \(c.id): skipped: \(c.skipReason ?? "not run")\n"
        }
        out += "\(dataset): \(summary(timing))\n"
        return out
    }

    private func json(_ timing: ValidationTiming?) -> JSONValue {
        func failure(_ f: ValidationFailure) -> JSONValue {
            .object(["check": .string(f.check.rawValue), "file": .string(f.file), "message": .string(f.message)])
        }
        var summary: [String: JSONValue] = [
            "checks": .int(checks.count), "failed": .int(failedCount), "skipped": .int(skippedCount),
            "passed": .int(checks.count - failedCount - skippedCount),
            "data_bytes": .int(dataBytes), "windows": .int(windows),
        ]
        if let t = timing {
            summary["seconds"] = .double(t.seconds)
            if let rate = megabytesPerSecond(t) { summary["mb_per_s"] = .double(rate) }
        }
        return .object([
            "format": .string("motionprep.validation"),
            "format_version": .int(1),
            "dataset": .string(dataset),
            "passed": .bool(passed),
            "checks": .array(checks.map { c in
                var o: [String: JSONValue] = ["id": .string(c.id.rawValue), "status": .string(c.status.rawValue),
                                              "failures": .array(c.failures.map(failure))]
                if let r = c.skipReason { o["skip_reason"] = .string(r) }
                return .object(o)
            }),
            "failures": .array(failures.map(failure)),
            "summary": .object(summary),
        ])
    }

    private func junit(_ timing: ValidationTiming?) -> String {
        let time = String(format: "%.3f", timing?.seconds ?? 0)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuite name=\"motionprep validate\" tests=\"\(checks.count)\" failures=\"\(failedCount)\" errors=\"0\" skipped=\"\(skippedCount)\" time=\"\(time)\">\n"
        out += "  <properties>\n"
        out += "    <property name=\"dataset\" value=\"\(XML.escape(dataset))\"/>\n"
        out += "    <property name=\"data_bytes\" value=\"\(dataBytes)\"/>\n"
        out += "    <property name=\"windows\" value=\"\(windows)\"/>\n"
        if let rate = megabytesPerSecond(timing) {
            out += "    <property name=\"mb_per_s\" value=\"\(String(format: "%.1f", rate))\"/>\n"
        }
        out += "  </properties>\n"
        for c in checks {
            let open = "  <testcase classname=\"dataset\" name=\"\(XML.escape(c.id.rawValue))\""
            switch c.status {
            case .passed:
                out += open + "/>\n"
            case .skipped:
                out += open + ">\n    <skipped message=\"\(XML.escape(c.skipReason ?? "not run"))\"/>\n  </testcase>\n"
            case .failed:
                let lines = c.failures.map { "\(displayPath($0.file)): \($0.message)" }
                var message = lines[0]
                if lines.count > 1 { message += " (and \(lines.count - 1) more)" }
                out += open + ">\n"
                out += "    <failure message=\"\(XML.escape(message))\" type=\"\(XML.escape(c.id.rawValue))\">"
                out += XML.escape(lines.joined(separator: "\n")) + "</failure>\n"
                out += "  </testcase>\n"
            }
        }
        out += "</testsuite>\n"
        return out
    }
}

/// XML 1.0 text and attribute escaping.
enum XML {
    /// Escapes `& < > " '`, writes tab, newline and carriage return as character references (so
    /// attribute values keep them), and replaces characters XML 1.0 cannot hold (other C0
    /// controls, U+FFFE, U+FFFF) with U+FFFD.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
