#if canImport(Glibc)
import Glibc
#endif
import Testing
import MotionCore
@testable import MotionConfig

/// A fresh temporary folder for one test.
private func temporaryFolder() throws -> String {
    var template = Array("/tmp/motionprep-config-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    return String(cString: template)
}

private func write(_ text: String, to path: String) throws {
    let f = fopen(path, "w")
    try #require(f != nil)
    fputs(text, f)
    fclose(f)
}

@Test func loadsAFileAndRecordsItsFolderAndStem() throws {
    let dir = try temporaryFolder()
    try write(edited("version: 1\n", "version: 1\n"), to: dir + "/my.walk.yaml")
    let spec = try PipelineLoader.load(path: dir + "/my.walk.yaml")
    #expect(spec.file == dir + "/my.walk.yaml")
    #expect(spec.baseDirectory == dir)
    #expect(spec.name == "my.walk")
}

@Test func missingFileIsNoInput() {
    #expect(throws: MotionError(.noInput, "cannot read pipeline file `no/such.yaml`: no such file")) {
        try PipelineLoader.load(path: "no/such.yaml")
    }
}

@Test func folderIsAnIOError() throws {
    let dir = try temporaryFolder()
    #expect(throws: MotionError(.ioError, "cannot read pipeline file `\(dir)`: it is a folder")) {
        try PipelineLoader.load(path: dir)
    }
}

@Test func problemsInAFileNameItAsGiven() throws {
    let dir = try temporaryFolder()
    try write("version: 1\nversoin: 1\n", to: dir + "/bad.yaml")
    do {
        _ = try PipelineLoader.load(path: dir + "/bad.yaml")
        Issue.record("loaded")
    } catch let error as PipelineFileError {
        #expect(error.file == dir + "/bad.yaml")
        #expect(error.issues.last?.message == "unknown key `versoin` in the pipeline at \(dir)/bad.yaml:2:1; did you mean `version`?")
        #expect(error.message.split(separator: "\n").count == error.issues.count)
    }
}

@Test(arguments: [("walk.yaml", "."), ("pipelines/walk.yaml", "pipelines"), ("/walk.yaml", "/"),
                  ("a/b//walk.yaml", "a/b"), ("../x/walk.yaml", "../x"), ("./walk.yaml", ".")])
func baseDirectoryIsTheFolderPart(path: String, folder: String) {
    #expect(PipelineLoader.directory(of: path) == folder)
}

@Test(arguments: [("walk.yaml", "walk"), ("dir/my.pipeline.yml", "my.pipeline"), (".hidden", ".hidden"), ("walk", "walk")])
func nameDefaultsToTheStem(path: String, stem: String) {
    #expect(PipelineLoader.stem(of: path) == stem)
}
