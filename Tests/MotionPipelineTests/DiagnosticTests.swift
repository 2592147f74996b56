import MotionConfig
import MotionCore
import Testing
@testable import MotionJob

/// The printed form of messages (docs/commands.md, "Messages").
@Suite struct DiagnosticTests {
    @Test func leadingLocationsMoveToTheFront() {
        let d = Diagnostic.from(sentence: "data/a.csv:12:5: `x` is not a number", severity: .error)
        #expect(d.description == "data/a.csv:12:5: error: `x` is not a number")
        #expect(Diagnostic.from(sentence: "a.csv:3: no data rows", severity: .warning).description == "a.csv:3: warning: no data rows")
        #expect(Diagnostic.from(sentence: "r.bin at byte 32: a partial scan", severity: .error).description == "r.bin: error: at byte 32: a partial scan")
        #expect(Diagnostic.from(sentence: "data/x.csv: the file is empty", severity: .error).description == "data/x.csv: error: the file is empty")
        #expect(Diagnostic.from(sentence: "out.partial: kept", severity: .note).location?.file == "out.partial")
    }

    @Test func sentencesWithoutALocationSayMotionprep() {
        #expect(Diagnostic.from(sentence: "cannot create out: Permission denied", severity: .error).description
                == "motionprep: error: cannot create out: Permission denied")
        // A colon inside a sentence is not a location, nor is a word without `/` or `.`.
        #expect(Diagnostic.from(sentence: "interrupted: run --resume", severity: .error).location == nil)
        #expect(Diagnostic.from(sentence: "split `test` holds 0 windows: check", severity: .warning).location == nil)
    }

    @Test func knownLocationsAreTakenOutOfTheSentenceAndAdviceBecomesHints() {
        let at = SourceLocation(file: "walk.yaml", line: 14, column: 3)
        let d = Diagnostic.from(sentence: "unknown key `lenght_s` in `window` at walk.yaml:14:3; did you mean `length_s`?", severity: .error, known: at)
        #expect(d.description == "walk.yaml:14:3: error: unknown key `lenght_s` in `window`\n  did you mean `length_s`?")
        let w = Diagnostic.from(sentence: "split `test` is empty; if this is intended, add `split_share` to `ignore_warnings` in the pipeline to silence it", severity: .warning)
        #expect(w.hints == ["if this is intended, add `split_share` to `ignore_warnings` in the pipeline to silence it"])
        #expect(w.message == "split `test` is empty")
    }

    @Test func pipelineFileErrorsPrintOneDiagnosticPerIssue() {
        let e = PipelineFileError(file: "p.yaml", issues: [
            ConfigIssue(location: SourceLocation(file: "p.yaml"), message: "missing required key `output` in the pipeline (p.yaml)"),
            ConfigIssue(location: SourceLocation(file: "p.yaml", line: 2, column: 1), message: "`version` at p.yaml:2:1 must be 1, not `2`"),
        ])
        #expect(e.diagnostics.map(\.description) == ["p.yaml: error: missing required key `output` in the pipeline",
                                                     "p.yaml:2:1: error: `version` must be 1, not `2`"])
    }

    @Test func labelChecksAgainstMapAndClasses() {
        var labels = LabelsSpec(map: [KeyValue("W", "walk"), KeyValue("J", "jog")], classes: ["walk", "stairs"])
        labels.location = SourceLocation(file: "p.yaml", line: 9, column: 3)
        // None reaches a class: an error with the classes as a hint.
        let none = PipelineChecks.labelDiagnostics(labels, found: ["X", "Y"], where: "a.csv", complete: false, file: "p.yaml")
        #expect(none.map(\.severity) == [.error])
        #expect(none[0].description.hasPrefix("p.yaml:9:3: error: none of the labels found in a.csv (`X`, `Y`) is a class"))
        // Some reach no class; a map key unseen in a first file is only a note.
        let some = PipelineChecks.labelDiagnostics(labels, found: ["W", "stair"], where: "a.csv", complete: false, file: "p.yaml")
        #expect(some.map(\.severity) == [.warning, .note])
        #expect(some[0].hints.first == "did you mean `stairs` for `stair`? (rename it with `map: {stair: stairs}`)")
        // With every label seen, unseen map keys and unreached classes are warnings.
        let all = PipelineChecks.labelDiagnostics(labels, found: ["W"], where: "the paths", complete: true, file: "p.yaml")
        #expect(all.map(\.severity) == [.warning, .warning])
        #expect(all[1].message == "class(es) `stairs` get no label from the paths, so no window can have them")
        // Silenced by `ignore_warnings`.
        let quiet = PipelineChecks.labelDiagnostics(labels, found: ["W", "stair"], where: "a.csv", complete: true, file: "p.yaml",
                                                    ignored: [.unclassifiedLabels, .emptyClass])
        #expect(quiet.map(\.severity) == [.warning])  // the unseen map key `J`
        #expect(PipelineChecks.labelDiagnostics(labels, found: [], where: "a.csv", complete: false, file: "p.yaml").map(\.severity) == [.warning])
    }
}
