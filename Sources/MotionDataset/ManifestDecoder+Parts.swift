import MotionCore

// The parts of a manifest that `ManifestDecoder.decode` reads whole, each problem collected: the
// pipeline, the channels, the inputs and an applied output's source dataset.
extension ManifestDecoder {
    /// `pipeline`: its name, hash and resolved object; nil (and `undecoded`) when a part fails.
    mutating func decodePipeline(_ top: [String: JSONValue]) -> DatasetManifest.Pipeline? {
        var pipeline: DatasetManifest.Pipeline?
        if let p = object(top["pipeline"], "pipeline") {
            let before = problems.count
            checkKeys(p, path: "pipeline", allowed: ["name", "sha256", "resolved"], required: ["name", "sha256", "resolved"])
            let name = string(p["name"], "pipeline.name")
            let hash = sha256(p["sha256"], "pipeline.sha256")
            var resolved: JSONValue?
            if p["resolved"] != nil, object(p["resolved"], "pipeline.resolved") != nil { resolved = p["resolved"] }
            if let name, let hash, let resolved, problems.count == before {
                pipeline = DatasetManifest.Pipeline(name: name, sha256: hash, resolved: resolved)
            }
        }
        if pipeline == nil { undecoded.insert(.pipeline) }
        return pipeline
    }

    /// `channels`: each one's name and unit, in order; nil when an entry fails.
    mutating func decodeChannels(_ top: [String: JSONValue]) -> (names: [String]?, units: [String]?) {
        var channelNames: [String]?, channelUnits: [String]?
        if let list = array(top["channels"], "channels") {
            var names: [String] = [], units: [String] = []
            for (i, item) in list.enumerated() {
                let path = "channels[\(i)]"
                guard let c = object(item, path) else { continue }
                checkKeys(c, path: path, allowed: ["name", "unit"], required: ["name", "unit"])
                if let n = string(c["name"], path + ".name") { names.append(n) }
                if let u = string(c["unit"], path + ".unit") { units.append(u) }
            }
            if names.count == list.count, units.count == list.count {
                if list.isEmpty { problems.append("`channels` must list at least one channel") }
                unique(names, "channels")
                channelNames = names
                channelUnits = units
            }
        }
        return (channelNames, channelUnits)
    }

    /// `inputs`: every file the run read, with its bytes, SHA-256 and role; nil (and
    /// `undecoded`) when an entry fails.
    mutating func decodeInputs(_ top: [String: JSONValue]) -> [DatasetManifest.Input]? {
        var inputs: [DatasetManifest.Input]?
        if let list = array(top["inputs"], "inputs") {
            let before = problems.count
            var out: [DatasetManifest.Input] = []
            for (i, item) in list.enumerated() {
                let path = "inputs[\(i)]"
                guard let e = object(item, path) else { continue }
                checkKeys(e, path: path, allowed: ["path", "bytes", "sha256", "role"], required: ["path", "bytes", "sha256"])
                let p = string(e["path"], path + ".path")
                // `role` (absent in manifests written before it existed): what the file was to the run.
                var role: String?
                if e["role"] != nil, let r = string(e["role"], path + ".role") {
                    if ["recording", "labels", "iio_layout"].contains(r) { role = r } else {
                        problems.append("`\(path).role` must be \"recording\", \"labels\" or \"iio_layout\", not \"\(r)\"")
                    }
                }
                let b = int(e["bytes"], path + ".bytes", min: 0)
                let h = sha256(e["sha256"], path + ".sha256")
                if let p, let b, let h { out.append(DatasetManifest.Input(path: p, bytes: b, sha256: h, role: role)) }
            }
            if problems.count == before, out.count == list.count { inputs = out }
        }
        if inputs == nil { undecoded.insert(.inputs) }
        return inputs
    }

    /// An applied output's `source_dataset`; nil (and `undecoded`) when it fails.
    mutating func decodeSource(_ top: [String: JSONValue]) -> DatasetManifest.Applied? {
        var source: DatasetManifest.Applied?
        if let o = object(top["source_dataset"], "source_dataset") {
            let keys = ["name", "manifest_sha256", "pipeline_sha256"]
            checkKeys(o, path: "source_dataset", allowed: keys, required: keys)
            let name = string(o["name"], "source_dataset.name")
            let m = sha256(o["manifest_sha256"], "source_dataset.manifest_sha256")
            let p = sha256(o["pipeline_sha256"], "source_dataset.pipeline_sha256")
            if let name, let m, let p { source = DatasetManifest.Applied(name: name, manifestSHA256: m, pipelineSHA256: p) }
        }
        if source == nil { undecoded.insert(.sourceDataset) }
        return source
    }
}
