import MotionCore

/// One input file as the manifest lists it: a recording's file, or (`role`) a labels file or a
/// file of an IIO layout folder.
package struct InputEntry: Sendable, Equatable, JSONDecodable {
    package var inputIndex: Int       // the `inputs` entry of a recording file; -1 for the other roles
    package var path: String          // relative to the pipeline file's folder
    package var bytes: Int
    package var sha256: String
    package var role: InputRole = .recording

    /// The entry as JSON (records, `part.json`; the manifest leaves out `input_index`).
    package var json: JSONValue {
        .object(["input_index": .int(inputIndex), "path": .string(path), "bytes": .int(bytes), "sha256": .string(sha256),
                 "role": .string(role.rawValue)])
    }

    /// Decodes `json`'s form.
    package init(json o: JSONNode) throws(JSONProblem) {
        let path = try o["path"].string()
        guard !path.isEmpty else { throw o["path"].problem("must not be empty") }
        let roleName = try o["role"].string()
        guard let role = InputRole(rawValue: roleName) else {
            throw o["role"].problem("must be \"recording\", \"labels\" or \"iio_layout\", not \"\(roleName)\"")
        }
        self.init(inputIndex: try o["input_index"].int(), path: path, bytes: try o["bytes"].int(min: 0),
                  sha256: try o["sha256"].sha256(), role: role)
    }


    package init(inputIndex: Int, path: String, bytes: Int, sha256: String, role: InputRole = .recording) {
        self.inputIndex = inputIndex
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
        self.role = role
    }
}
