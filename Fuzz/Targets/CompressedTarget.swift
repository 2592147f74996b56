// libFuzzer target: a compressed text input (docs/inputs.md, "Compressed files") read from a file
// through the byte layer every text reader uses (magic detection, the gzip/zstd/xz/bzip2 decoders,
// the binary check) into the MotionCollector parser, whole or in blocks. The first byte picks the
// block size; the rest is the file. Seeds: Fuzz/corpus/compressed (a MotionCollector file in each
// format, and cut and concatenated ones). Decompression bombs are bounded by the parsers' line
// limit and the blocks: memory stays under -rss_limit_mb.
import Glibc
import MotionCore
import MotionIngest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompressed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let control = input.byte()
    let path = "/tmp/motionprep-fuzz-compressed-\(getpid()).csv"
    let bytes = input.rest
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0, "fuzz: cannot write \(path)")
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    defer { unlink(path) }
    do {
        if control & 1 == 0 {
            _ = try MotionCollectorReader.read(path: path, displayPath: "fuzz.csv.gz", units: .si, keep: nil)
        } else {
            let reader = try MotionCollectorBlockReader(path: path, displayPath: "fuzz.csv.gz", units: .si, keep: nil,
                                                        blockBytes: Int(control >> 1) * 97 + 1)
            var blocks = 0
            while try reader.next() != nil {
                blocks += 1
                // A bomb of blank lines would loop long: a few thousand blocks are enough to fuzz.
                if blocks > 4096 { break }
            }
        }
    } catch {
        requireUserFacing(error)
    }
    return 0
}
