import MotionDataset
import MotionCore
import Dispatch
import Foundation
import MotionChecksum

/// `files.*`: the data files as bytes — listed, present, the right size and digest, nothing extra.
extension _ValidationRun {
    /// `files.sha256sums`: SHA256SUMS lists exactly the manifest's files with the manifest's digests.
    func checkSHA256SUMS() {
        builder.ran(.filesSHA256SUMS)
        let name = Self.sumsName
        let kind = _EntryKind(lstatAt: path(name))
        guard kind == .regular || kind == .missing else {
            builder.fail(.filesSHA256SUMS, name, "is \(kind.phrase), not a regular file, so it is not read")
            return
        }
        guard let data = (try? RegularFile.readAll(path(name)).get()).map({ Data($0) }) else {
            builder.fail(.filesSHA256SUMS, name, "is missing (a run writes it beside manifest.json)")
            return
        }
        guard let text = String(data: data, encoding: .utf8) else {
            builder.fail(.filesSHA256SUMS, name, "is not UTF-8 text")
            return
        }
        var listed: [String: String] = [:]
        var order: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { continue }
            // `sha256sum` format: 64 hex digits, a space, a space or `*`, the path.
            let chars = Array(line.utf8)
            let hex = String(decoding: chars.prefix(64), as: UTF8.self)
            guard chars.count > 66, hex.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
                  chars[64] == 0x20, chars[65] == 0x20 || chars[65] == UInt8(ascii: "*")
            else {
                builder.fail(.filesSHA256SUMS, name, "line \(index + 1) is not `<64 hex digits>  <path>`: \"\(line.prefix(80))\"")
                continue
            }
            let file = String(decoding: chars[66...], as: UTF8.self)
            if listed[file] != nil {
                builder.fail(.filesSHA256SUMS, name, "line \(index + 1) lists `\(file)` a second time")
                continue
            }
            listed[file] = hex
            order.append(file)
        }
        let files = manifest.files
        for f in files {
            guard let hex = listed[f.path] else {
                builder.fail(.filesSHA256SUMS, name, "does not list `\(f.path)`, which the manifest lists")
                continue
            }
            if hex != f.sha256 {
                builder.fail(.filesSHA256SUMS, name, "gives `\(f.path)` the digest \(hex), but the manifest says \(f.sha256)")
            }
        }
        let manifestPaths = Set(files.map(\.path))
        for file in order where !manifestPaths.contains(file) {
            builder.fail(.filesSHA256SUMS, name, "lists `\(file)`, which the manifest does not list")
        }
    }

    /// `files.exist` for one file (and marks `files.size` and `files.sha256` as run); false when
    /// it is not a regular file reached through folders only (nothing else is then checked, and
    /// nothing is opened: a FIFO or device where a data file should be fails at once).
    func checkFileExists(_ file: DatasetManifest.DataFile) -> Bool {
        builder.ran(.filesExist)
        builder.ran(.filesSize)
        builder.ran(.filesSHA256)
        let (kind, at) = entryKind(file.path)
        guard kind == .regular else {
            let listed = "is listed in the manifest (split `\(file.split.rawValue)`) but"
            let what: String
            if kind == .missing {
                what = "does not exist"
            } else if at != file.path {
                what = "`\(at)` on its path is \(kind.phrase), not a folder, so it is not followed"
            } else if kind == .directory {
                what = "is a folder"
            } else {
                what = "is \(kind.phrase), not a regular file, so it is not opened"
            }
            builder.fail(.filesExist, file.path, "\(listed) \(what)")
            return false
        }
        return true
    }

    /// `files.size` and `files.sha256` for one file from its digest; false when the file could
    /// not be read (reported under `files.readable`).
    func checkFileDigest(_ file: DatasetManifest.DataFile, _ digest: Result<(hex: String, bytes: Int), any Error>) -> Bool {
        switch digest {
        case .success(let (hex, bytes)):
            dataBytes += bytes
            if bytes != file.bytes {
                let how = bytes < file.bytes ? "truncated?" : "appended to?"
                builder.fail(.filesSize, file.path, "has \(bytes) bytes, but the manifest lists \(file.bytes) (\(how))")
            }
            if hex != file.sha256 {
                builder.fail(.filesSHA256, file.path, "has SHA-256 \(hex), but the manifest lists \(file.sha256): the file has changed since it was written")
            }
            return true
        case .failure(let error):
            builder.fail(.filesReadable, file.path, "cannot be read: \(error)")
            return false
        }
    }
}

/// The SHA-256 of one file, computed on a background thread while the file's data is checked
/// (both read it; the hash is the serial part of a file's check otherwise).
final class _DigestJob: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<(hex: String, bytes: Int), any Error>?

    init(path: String) {
        DispatchQueue.global().async { [self] in
            result = Result { try SHA256.hexOfFile(path: path) }
            done.signal()
        }
    }

    /// Waits for the digest (or the error reading the file).
    func wait() -> Result<(hex: String, bytes: Int), any Error> {
        done.wait()
        return result!
    }
}
