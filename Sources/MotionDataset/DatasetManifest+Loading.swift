import Foundation
import MotionCore

extension DatasetManifest {
    /// Decodes a parsed manifest, refusing it on the first schema problem.
    ///
    /// - Parameter file: the manifest's path, for messages.
    /// - Throws: `MotionError(.dataError)` naming the file, the key path, what was expected and
    ///   what was found (the first of ``ManifestDecoder``'s problems, with how many more there are).
    public static func decode(_ value: JSONValue, file: String) throws -> DatasetManifest {
        var decoder = ManifestDecoder()
        let decoded = decoder.decode(value)
        if let first = decoder.problems.first {
            let more = decoder.problems.count - 1
            throw MotionError(.dataError, "\(file): \(first)"
                + (more > 0 ? " (and \(more) more problem\(more == 1 ? "" : "s"); `motionprep validate` lists them)" : ""))
        }
        guard let decoded else { throw MotionError(.dataError, "\(file) is not a motionprep dataset manifest") }
        return decoded.manifest
    }

    /// Decodes manifest bytes (see ``decode(_:file:)``).
    ///
    /// - Throws: `MotionError(.dataError)` with the line and column when the bytes are not JSON.
    public static func decode(bytes: [UInt8], file: String) throws -> DatasetManifest {
        try decode(parse(bytes: bytes, file: file), file: file)
    }

    /// Parses manifest bytes as JSON.
    ///
    /// - Throws: `MotionError(.dataError)` naming the file, line and column of the first syntax problem.
    public static func parse(bytes: [UInt8], file: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw MotionError(.dataError, "\(file) is not valid JSON at \(file):\(error.line):\(error.column): \(error.problem)")
        }
    }

    /// Reads `{directory}/manifest.json`.
    ///
    /// - Throws: `MotionError(.noInput)` when the folder has no manifest (not a finished
    ///   dataset), `.dataError` when it is not JSON or does not match the schema.
    public static func load(directory: String) throws -> DatasetManifest {
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + DatasetSchema.manifestFileName
        return try decode(bytes: try readBytes(path: path, directory: directory), file: path)
    }

    /// The bytes of `{directory}/manifest.json`, as `load(directory:)` reads them.
    public static func readBytes(path: String, directory: String) throws -> [UInt8] {
        guard let data = try RegularFile.contents(atPath: path) else {
            throw MotionError(.noInput, "\(directory) is not a finished motionprep dataset: \(path) is missing or cannot be read (a run writes it last)")
        }
        return Array(data)
    }
}
