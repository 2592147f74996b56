import Testing
@testable import MotionYAML

private func parse(_ text: String) throws -> YAMLNode {
    try YAMLParser.parse(text, file: "t.yaml")
}

private func scalar(_ value: String, _ style: YAMLScalar.Style = .plain, _ line: Int, _ column: Int) -> YAMLNode {
    YAMLNode(.scalar(YAMLScalar(value, style: style)), at: YAMLMark(line: line, column: column))
}

@Test func blockMappingKeepsOrderAndOneBasedMarks() throws {
    let root = try parse("""
    zeta: 1
    alpha:
      - x
      - 'y'
    beta: {k: "v"}
    """)
    let pairs = try #require(root.mapping)
    #expect(root.mark == YAMLMark(line: 1, column: 1))
    #expect(pairs.map { $0.key.scalar?.value } == ["zeta", "alpha", "beta"])
    #expect(pairs[0].value == scalar("1", .plain, 1, 7))
    let items = try #require(pairs[1].value.sequence)
    #expect(pairs[1].value.mark == YAMLMark(line: 3, column: 3))
    #expect(items == [scalar("x", .plain, 3, 5), scalar("y", .singleQuoted, 4, 5)])
    let inner = try #require(pairs[2].value.mapping)
    #expect(pairs[2].value.mark == YAMLMark(line: 5, column: 7))
    #expect(inner == [YAMLPair(key: scalar("k", .plain, 5, 8), value: scalar("v", .doubleQuoted, 5, 11))])
}

@Test func columnsCountCharactersNotBytes() throws {
    let root = try parse("é: [ü, x]\n")
    let items = try #require(root.mapping?.first?.value.sequence)
    #expect(items.map(\.mark) == [YAMLMark(line: 1, column: 5), YAMLMark(line: 1, column: 8)])
}

@Test func scalarStylesAndUnescaping() throws {
    let root = try parse("""
    a: "tab\\there"
    b: |
      line1
      line2
    c: >
      folded
      text
    d: !!str 50
    e: plain text
    """)
    let values = try #require(root.mapping).map { $0.value.scalar! }
    #expect(values[0] == YAMLScalar("tab\there", style: .doubleQuoted))
    #expect(values[1] == YAMLScalar("line1\nline2\n", style: .literal))
    #expect(values[2] == YAMLScalar("folded text\n", style: .folded))
    #expect(values[3].value == "50" && !values[3].isPlain && values[3].int == nil)
    #expect(values[4] == YAMLScalar("plain text"))
}

@Test(arguments: ["", "\n\n", "# just a comment\n", "---\n", "---\n...\n", "\u{FEFF}"])
func emptyDocumentIsTheNullNode(text: String) throws {
    let root = try parse(text)
    #expect(root.isNull)
}

@Test func byteOrderMarkIsSkipped() throws {
    let root = try YAMLParser.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("a: 1\n".utf8), file: "t.yaml")
    #expect(root.mapping?.first?.value == scalar("1", .plain, 1, 4))
}

@Test func anchorsWithoutAliasesAreAccepted() throws {
    let root = try parse("a: &anchor 1\n")
    #expect(root.mapping?.first?.value.scalar?.int == 1)
}

@Test func nestingUpToTheLimitParses() throws {
    let depth = 10
    let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    var node = try YAMLParser.parse(text, file: "t.yaml", maxDepth: depth)
    for _ in 1..<depth { node = try #require(node.sequence?.first) }
    #expect(node.sequence == [])
}

@Test func readFileReportsMissingFilesAndFolders() throws {
    #expect(throws: YAMLFileError(path: "/nonexistent/x.yaml", errno: 2, reason: "no such file")) {
        try YAMLParser.readFile(path: "/nonexistent/x.yaml", maxBytes: 100)
    }
    do {
        _ = try YAMLParser.readFile(path: "/", maxBytes: 100)
        Issue.record("reading a folder succeeded")
    } catch {
        #expect(error.reason == "it is a folder")
        #expect(!error.isMissing)
    }
}
