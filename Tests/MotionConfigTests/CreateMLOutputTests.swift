import Testing
@testable import MotionConfig

/// `output.type: createml` (docs/pipeline.md, `output`; docs/dataset-format.md, "Create ML folders").
@Suite struct CreateMLOutputTests {
    static let labelled = edited("output:\n  path: out\n", """
        labels: {from: rows, map: {W: walk, T: turn}}
        output:
          type: createml
          path: out

        """)

    @Test func decodesAndResolves() throws {
        let spec = try load(Self.labelled)
        #expect(spec.output.type == .createml)
        #expect(spec.canonicalJSON().contains("\"type\":\"createml\""))
    }

    @Test func needsLabels() {
        let m = messages(edited("output:\n  path: out\n", "output:\n  type: createml\n  path: out\n"))
        #expect(m.count == 1 && m[0].contains("`output.type: createml` at walk.yaml:10:") && m[0].contains("no `labels`"))
    }

    @Test func classesMustBeFolderNames() {
        let m = messages(edited("{W: walk, T: turn}", "{W: a/b, T: ..}", in: Self.labelled))
        #expect(m.count == 2 && m.allSatisfy { $0.contains("is not a folder name") })
        #expect(m[0].contains("class `..`") && m[1].contains("class `a/b`"))
    }

    @Test func refusesTheDeflateLevel() {
        let m = messages(edited("path: out\n", "path: out\n  deflate_level: 5\n", in: Self.labelled))
        #expect(m.count == 1 && m[0].contains("`type: createml`"))
    }
}
