import MotionCore
import MotionYAML

extension SpecDecoder {
    static let topLevelKeys = ["version", "name", "inputs", "units", "resample", "window", "labels",
                               "features", "magnitude", "transforms", "split", "on_error", "output", "ignore_warnings", "qa"]

    /// The whole file. Returns nil when anything is wrong (see `issues`).
    func decodePipeline(_ root: YAMLNode) -> PipelineSpec? {
        if root.isNull {
            report(nil, "the pipeline file `\(file)` is empty; it needs at least `version`, `inputs`, `resample`, `window` and `output`")
            return nil
        }
        guard let f = fields(root, path: "", allowed: Self.topLevelKeys) else { return nil }

        var version: Int?
        if let node = required("version", in: f) {
            if let v = node.scalar?.int, v == 1 { version = v } else { mustBe("version", node, "1") }
        }
        var name: String? = PipelineLoader.stem(of: file)
        if let node = f["name"] { name = string(node, "name") }

        var inputs: [InputSpec]?
        if let node = required("inputs", in: f) { inputs = decodeInputs(node) }

        var units: UnitSystem? = .si
        if let node = f["units"] { units = choice(node, "units") }

        var resample: ResampleSpec?
        if let node = required("resample", in: f) { resample = decodeResample(node) }

        var window: WindowSpec?
        if let node = required("window", in: f) {
            window = decodeWindow(node, rateHz: resample?.rateHz)
            window?.location = location(f.keyNode("window")?.mark ?? node.mark)
        }

        var labels: LabelsSpec?
        var labelsOK = true
        if let node = f["labels"] {
            labels = decodeLabels(node)
            labelsOK = labels != nil
        }

        var features: [String]? = []
        if let node = f["features"] { features = decodeFeatures(node) }

        var magnitude: [String]? = []
        if let node = f["magnitude"] { magnitude = stringList(node, "magnitude", unique: "sensor", nonEmpty: !resolved) }  // the canonical form writes `[]`

        var transforms: [TransformSpec]? = []
        if let node = f["transforms"] { transforms = decodeTransforms(node, rateHz: resample?.rateHz) }

        var split: SplitSpec? = SplitSpec()
        if let node = f["split"] { split = decodeSplit(node) }

        var onError: OnError? = .fail
        if let node = f["on_error"] { onError = choice(node, "on_error") }

        var output: OutputSpec?
        if let node = required("output", in: f) { output = decodeOutput(node) }

        var qa: QASpec?
        var qaOK = true
        if let node = f["qa"] {
            qa = decodeQA(node, rateHz: resample?.rateHz)
            qaOK = qa != nil
            if qa != nil, let output, output.type == .createml || output.partitioned {
                let mark = f.keyNode("qa")?.mark ?? node.mark
                report(mark, "`qa` at \(at(mark)) writes a `qa` column beside each window and a calibration report per recording in the manifest, which "
                       + (output.type == .createml ? "`output.type: createml` (rows, not windows) cannot hold; use `type: hdf5` or `shards`"
                          : "`output.partitioned: true` does not carry yet; remove `partitioned`"))
            }
        }

        var ignoreWarnings: [PipelineSpec.WarningName] = []
        if let node = f["ignore_warnings"], let names = stringList(node, "ignore_warnings", unique: "warning name", allowSingle: true, nonEmpty: false) {
            for (i, name) in names.enumerated() {
                if let w = PipelineSpec.WarningName(rawValue: name) { ignoreWarnings.append(w); continue }
                let all = PipelineSpec.WarningName.allCases.map(\.rawValue)
                mustBe("ignore_warnings[\(i)]", node.sequence?[i] ?? node, Text.alternatives(all), suggestion: Self.suggestion(for: name, among: all))
            }
        }

        if let labelsValue = labels, let inputs, let labelsNode = f["labels"] {
            crossCheck(labels: labelsValue, labelsNode: labelsNode, inputs: inputs)
        }
        if labelsOK, split?.stratify != nil, let splitNode = f["split"],
           let node = splitNode.mapping?.first(where: { $0.key.scalar?.value == "stratify" })?.value {
            crossCheck(stratifyNode: node, labels: labels)
        }

        if output?.type == .createml, labelsOK, let outputNode = f["output"] {
            crossCheck(createml: outputNode, labels: labels)
        }

        guard let version, let name, let inputs, let units, let resample, let window, labelsOK,
              let features, let magnitude, let transforms, let split, let onError, let output, qaOK, issues.isEmpty else { return nil }
        var spec = PipelineSpec(file: file, baseDirectory: baseDirectory, version: version, name: name, inputs: inputs,
                                units: units, resample: resample, window: window, labels: labels, features: features,
                                magnitude: magnitude, split: split, onError: onError, output: output)
        spec.ignoreWarnings = ignoreWarnings
        spec.transforms = transforms
        spec.qa = qa
        return spec
    }

    // MARK: - Cross-checks

    /// `a`, `a and b`, `a, b and c` in backticks.
    static func conjunction(_ items: [String]) -> String {
        let q = items.map { "`\($0)`" }
        return q.count <= 1 ? q.joined() : q.dropLast().joined(separator: ", ") + " and " + q.last!
    }

    /// `split.stratify: label` needs each recording's label before anything is read: `labels.from:
    /// path` (docs/pipeline.md, "Splits and folds"). Labels from rows or markers are known only
    /// once every file is read, and rows and intervals can give one recording several classes,
    /// which no split of recordings can balance exactly; those are refused rather than balanced
    /// by a majority that the windows would not follow.
    func crossCheck(stratifyNode node: YAMLNode, labels: LabelsSpec?) {
        guard let labels else {
            report(node.mark, "`split.stratify: label` at \(at(node.mark)) balances the splits by class, but the pipeline has no `labels`; add `labels` with `from: path`, or remove `stratify`")
            return
        }
        guard labels.from == .path else {
            report(node.mark, "`split.stratify: label` at \(at(node.mark)) needs one label per recording known before the run, from `labels.from: path`, "
                   + "but the labels come from `\(labels.from.rawValue)`, which can give a recording several classes; remove `stratify` (with `allocation: exact` and `by: recording` each split still gets its share of recordings), or label recordings by their folder with `from: path`")
            return
        }
    }

    /// `output.type: createml` writes one folder per class (docs/dataset-format.md, "Create ML
    /// folders"): it needs `labels`, and class names that are folder names.
    func crossCheck(createml node: YAMLNode, labels: LabelsSpec?) {
        let typeNode = node.mapping?.first { $0.key.scalar?.value == "type" }?.value ?? node
        guard let labels else {
            report(typeNode.mark, "`output.type: createml` at \(at(typeNode.mark)) writes one folder per class, but the pipeline has no `labels`; add `labels`, or use `type: hdf5` or `shards`")
            return
        }
        if labels.perSample {
            report(typeNode.mark, "`labels.per_sample: true` writes `y_seq`, each window's per-point classes, and `output.type: createml` at \(at(typeNode.mark)) writes rows, not windows, each row already filed under its own class; remove `per_sample`, or use `type: hdf5` or `shards`")
        }
        for name in labels.classes where !Self.isFolderName(name) {
            report(typeNode.mark, "`output.type: createml` at \(at(typeNode.mark)) names a folder after each class, and class `\(name)` is not a folder name (it must be non-empty, not `.` or `..`, without `/` or a control character); rename it in `labels.map` or `labels.classes`")
        }
    }

    /// A class name usable as one folder name of a Create ML folder.
    static func isFolderName(_ s: String) -> Bool {
        !s.isEmpty && s != "." && s != ".." && !s.unicodeScalars.contains { $0 == "/" || $0.properties.generalCategory == .control }
    }

    /// Checks that the label source can be served by the inputs.
    func crossCheck(labels: LabelsSpec, labelsNode: YAMLNode, inputs: [InputSpec]) {
        let fromNode = labelsNode.mapping?.first { $0.key.scalar?.value == "from" }?.value
        let mark = fromNode?.mark ?? labelsNode.mark
        let what = fromNode == nil ? "`labels` (`from: rows` by default)" : "`labels.from: \(labels.from.rawValue)`"
        switch labels.from {
        case .markers:
            let others = inputs.enumerated().filter { $0.element.type != .motioncollector }
            guard !others.isEmpty else { return }
            let named = others.map { "inputs[\($0.offset)]" }
            report(mark, "\(what) at \(at(mark)) needs motioncollector inputs, which alone carry markers, "
                   + "but \(Self.conjunction(named)) "
                   + (others.count == 1 ? "is" : "are") + " not; use `from: rows` or `from: intervals`")
        case .rows:
            let canCarry = inputs.contains { $0.type == .motioncollector || ($0.type == .csv && $0.csv?.labelColumn != nil) }
            guard !canCarry else { return }
            report(mark, "\(what) at \(at(mark)) needs an input with row labels (a motioncollector input, "
                   + "or a csv input with `label_column`), but no input has them; use `from: intervals` with a labels file, or `from: path` to label recordings by their folder")
        case .intervals, .path:
            return
        }
    }
}
