// libFuzzer target: the YAML parser and the pipeline-file loader (docs/pipeline.md) on arbitrary bytes.
import MotionConfig
import MotionCore
import MotionYAML

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        _ = try YAMLParser.parse(bytes: bytes, file: "fuzz.yaml")
    } catch {
        precondition(!error.message.isEmpty, "fuzz: a YAML error with an empty message")
    }
    // The loader takes text; invalid UTF-8 is already covered by the parser call above.
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    do {
        let spec = try PipelineLoader.load(yaml: text, file: "fuzz.yaml", baseDirectory: "fuzzdir")
        _ = spec.canonicalJSON()
    } catch {
        requireUserFacing(error)
    }
    return 0
}
