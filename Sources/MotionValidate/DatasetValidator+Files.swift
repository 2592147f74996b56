import Dispatch
import Foundation
import MotionChecksum

/// `files.*`: the data files as bytes — listed, present, the right size and digest, nothing extra.
extension _ValidationRun {
    /// `files.sha256sums`: SHA256SUMS lists exactly the manifest's files with the manifest's digests.
    func checkSHA256SUMS() {
        builder.ran(.filesSHA256SUMS)
        let name = Self.sumsName
        guard let data = FileManager.default.contents(atPath: path(name)) else {
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

    /// `files.unlisted`: every `.h5` / `.tar.zst` under the folder is listed in the manifest.
    func checkUnlisted() {
        builder.ran(.filesUnlisted)
        let listed = Set(manifest.files.map(\.path))
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            builder.fail(.filesUnlisted, ".", "the dataset folder cannot be listed")
            return
        }
        var found: [String] = []
        while let item = walker.nextObject() as? String {
            guard dataFileSuffixes.contains(where: { item.hasSuffix($0) }) else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path(item), isDirectory: &isDirectory), isDirectory.boolValue { continue }
            if !listed.contains(item) { found.append(item) }
        }
        for item in found.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            builder.fail(.filesUnlisted, item,
                         "is a data file the manifest does not list (left from another run, or added by hand); remove it or regenerate the dataset")
        }
    }

    /// `files.exist` for one file (and marks `files.size` and `files.sha256` as run); false when
    /// it does not exist or is a folder (nothing else is then checked).
    func checkFileExists(_ file: ManifestFile) -> Bool {
        builder.ran(.filesExist)
        builder.ran(.filesSize)
        builder.ran(.filesSHA256)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path(file.path), isDirectory: &isDirectory), !isDirectory.boolValue else {
            builder.fail(.filesExist, file.path,
                         "is listed in the manifest (split `\(file.split.rawValue)`) but \(isDirectory.boolValue ? "is a folder" : "does not exist")")
            return false
        }
        return true
    }

    /// `files.size` and `files.sha256` for one file from its digest; false when the file could
    /// not be read (reported under `files.readable`).
    func checkFileDigest(_ file: ManifestFile, _ digest: Result<(hex: String, bytes: Int), any Error>) -> Bool {
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
