import MotionConfig
import MotionCore
import MotionIngest

/// Resolving an `iio` input's scan layout (docs/inputs.md, "IIO buffer dumps (iio)"): inline, or a sysfs folder copy found by
/// rendering the `layout` template for a file.
package enum IIOLayoutResolver {
    /// The layout of `file` (a matched input file) for input `inputIndex`, with the input's
    /// `units:` as its `declaredUnits`.
    ///
    /// - Parameter file: the matched file whose folder template to render; unused for inline layouts.
    /// - Throws: `IngestError` for an unusable folder layout (65), `.cannotOpen` (66) for a missing
    ///   folder; `PipelineFileError` (78) for an unusable inline layout.
    /// - Parameter ledger: hears the bytes of the folder's files (the manifest's `iio_layout` inputs).
    package static func layout(inputIndex: Int, spec: PipelineSpec, file: String, ledger: InputLedger? = nil) throws -> IIOLayout {
        let input = spec.inputs[inputIndex]
        let options = input.iio ?? IIOOptions()
        guard let template = options.layoutFolder else {
            return try inline(options, inputIndex: inputIndex, spec: spec)
        }
        let rendered = InputDiscovery.render(template, file: file, base: spec.baseDirectory)
        let folder = PathText.normalize(PathText.join(spec.baseDirectory, rendered))
        var layout = try IIOLayout.load(folder: folder, displayFolder: folder, observer: ledger?.observer(.iioLayout))
        layout.declaredUnits = declaredUnits(input)
        return layout
    }

    /// The inline layout of an input (`layout: {channels: …, timestamp: …, sampling_frequency_hz: …}`),
    /// with the input's `units:` as its `declaredUnits`. `PipelineLoader` has already checked it,
    /// so it throws only for specs built in code.
    ///
    /// - Throws: `PipelineFileError` (78) naming the offending value.
    package static func inline(_ options: IIOOptions, inputIndex: Int, spec: PipelineSpec) throws -> IIOLayout {
        var layout = try options.inlineLayout(file: spec.file, key: "inputs[\(inputIndex)].layout")
        layout.declaredUnits = declaredUnits(spec.inputs[inputIndex])
        return layout
    }

    /// An input's `units:` by channel name (the first entry wins, as for csv).
    package static func declaredUnits(_ input: InputSpec) -> [String: String] {
        Dictionary(input.units.map { ($0.key, $0.value) }) { first, _ in first }
    }

    /// The `x` sensor of an iio input: named by `sensor` (or `{stem}`, each file's stem), with
    /// the layout's channels in scan-index order. The layout is the inline one, or the folder
    /// rendered for the input's first matched file.
    ///
    /// - Returns: nil when `sensors:` is given and leaves out the input's `sensor`.
    /// - Throws: `MotionError(.noInput)` when a folder layout is used and the input matches no
    ///   file (there is no folder to read); the layout's errors; `PipelineFileError` (78) when a
    ///   `units:` key names none of the layout's channels.
    package static func sensor(inputIndex: Int, spec: PipelineSpec, ledger: InputLedger? = nil) throws -> ChannelLayout.Sensor? {
        let input = spec.inputs[inputIndex]
        if let keep = input.sensors, let name = input.sensor, !keep.contains(name) { return nil }
        let layout: IIOLayout
        if input.iio?.layoutFolder != nil {
            guard let first = InputDiscovery.match(spec).files[inputIndex].first else {
                if input.files != nil {
                    throw MotionError(.noInput, "no file given is read by inputs[\(inputIndex)] of \(spec.file) (`\(input.paths.joined(separator: "`, `"))`), so its `layout` folder cannot be read to learn the channels the dataset has; give that input's files too (`--input N`)")
                }
                throw MotionError(.noInput, "inputs[\(inputIndex)] of \(spec.file) matches no file, so its `layout` folder cannot be read to learn the channels (paths are relative to the pipeline file's folder `\(spec.baseDirectory)`)")
            }
            layout = try self.layout(inputIndex: inputIndex, spec: spec, file: first.path, ledger: ledger)
        } else {
            layout = try inline(input.iio ?? IIOOptions(), inputIndex: inputIndex, spec: spec)
        }
        try layout.checkTimeSource()
        // `units:` keys must name channels of the layout; for a folder this is known only now.
        let unknown = input.unitIssues(channels: layout.channelNames, file: spec.file, index: inputIndex)
        if !unknown.isEmpty { throw PipelineFileError(file: spec.file, issues: unknown) }
        return ChannelLayout.Sensor(inputIndex: inputIndex, name: input.sensor ?? "{stem}",
                                    channelNames: layout.channelNames, channelUnits: layout.channelUnits(spec.units))
    }
}
