import Testing
@testable import MotionConfig

/// `skip_lines` and `time.format` on csv inputs (issue 17 point 6): decoding, file:line:col errors, canonical JSON.
@Suite struct CSVReaderOptionsTests {
    static func csv(_ extra: String, time: String = "{column: t}") -> String {
        edited("type: motioncollector", "type: csv\n    time: \(time)\n    channels: {acc_x: ax}\(extra)")
    }

    @Test func decodes() throws {
        let spec = try load(Self.csv("\n    skip_lines: 3\n    delimiter: \";\"", time: #"{column: t, format: "%Y-%m-%d %H:%M:%S:%f"}"#))
        let csv = try #require(spec.inputs[0].csv)
        #expect(csv.skipLines == 3)
        #expect(csv.delimiterGiven)
        #expect(csv.timeFormat == "%Y-%m-%d %H:%M:%S:%f")
        #expect(try load(Self.csv("")).inputs[0].csv?.delimiterGiven == false)
    }

    @Test func errorsNameTheirPlace() {
        #expect(messages(Self.csv("\n    skip_lines: -1")) == ["`inputs[0].skip_lines` at walk.yaml:6:17 must be a whole number of at least 0, not `-1`"])
        #expect(messages(Self.csv("", time: #"{column: t, format: "%Y-%m-%d %H:%M"}"#))
                == ["`inputs[0].time.format` at walk.yaml:4:31 lacks `%S` (expected a pattern of `%Y`, `%m`, `%d`, `%H`, `%M`, `%S`, `%f`, `%z` or `%%` and literal characters, with `%Y`, `%m`, `%d`, `%H`, `%M` and `%S` once each, such as `%Y-%m-%d %H:%M:%S:%f`)"])
        #expect(messages(Self.csv("", time: #"{column: t, unit: ms, format: "%Y%m%d%H%M%S"}"#))
                == ["key `format` in `inputs[0].time` at walk.yaml:4:33 does not apply with `unit`; a `format` says how to read the time on its own"])
        #expect(messages(edited("    paths", "    skip_lines: 1\n    paths")) == ["key `skip_lines` in `inputs[0]` at walk.yaml:4:5 applies only to `type: csv`"])
    }

    @Test func canonicalJSON() throws {
        let plain = try load(Self.csv("")).canonicalJSON()
        #expect(!plain.contains("skip_lines") && !plain.contains("format"))  // pipelines written before keep their hash
        #expect(try load(Self.csv("\n    skip_lines: 0")).canonicalJSON() == plain)
        let skip = try load(Self.csv("\n    skip_lines: 2")).canonicalJSON()
        #expect(skip.contains(#""skip_lines":2"#))
        let format = try load(Self.csv("", time: #"{column: t, format: "%Y%m%d%H%M%S"}"#)).canonicalJSON()
        #expect(format.contains(#""time":{"column":"t","format":"%Y%m%d%H%M%S","unit":"s"}"#))
    }
}
