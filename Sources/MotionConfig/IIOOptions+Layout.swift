import MotionCore
import MotionIngest

extension IIOOptions {
    /// The scan layout of an inline `layout:` (docs/inputs.md, "IIO buffer dumps (iio)"), checked as a whole: every type string
    /// (docs/iio-format.md §2.2), one scan index per channel, the size limits, and a time source
    /// (`timestamp` or `sampling_frequency_hz`). A problem is a pipeline problem, reported at the
    /// position of the offending value.
    ///
    /// Messages and the layout's warnings name `file:line:column` where the options carry
    /// positions (a loaded pipeline), else `file key…` (options built in code).
    ///
    /// - Parameters:
    ///   - file: the pipeline file as the user named it.
    ///   - key: the key path of the layout, `inputs[0].layout`.
    /// - Returns: the layout; its `source` is the position of the `layout` mapping.
    /// - Throws: `PipelineFileError` (78) with one issue.
    public func inlineLayout(file: String, key: String) throws(PipelineFileError) -> IIOLayout {
        let fallback = "\(file) \(key)"
        let channels = self.channels.enumerated().map { i, c in
            IIOLayout.ChannelDeclaration(name: c.name, index: c.index, type: c.type, scale: c.scale, offset: c.offset,
                                         typeSource: c.typeLocation?.description ?? "\(fallback).channels[\(i)].type",
                                         indexSource: c.indexLocation?.description)
        }
        let timestamp = timestampIndex.map {
            IIOLayout.ChannelDeclaration(name: "in_timestamp", index: $0, type: timestampType ?? "le:s64/64>>0",
                                         typeSource: timestampTypeLocation?.description ?? location?.description
                                             ?? "\(fallback).timestamp.type",
                                         indexSource: timestampIndexLocation?.description)
        }
        do {
            let layout = try IIOLayout(channels: channels, timestamp: timestamp, samplingFrequencyHz: samplingFrequencyHz,
                                       clock: nil, warnAboutClock: false, source: location?.description ?? fallback)
            try layout.checkTimeSource()
            return layout
        } catch let error as IngestError {
            throw PipelineFileError(file: file, issues: [ConfigIssue(location: position(of: error, file: file),
                                                                     message: error.message)])
        } catch {
            throw PipelineFileError(file: file, issues: [ConfigIssue(location: location ?? SourceLocation(file: file),
                                                                     message: "\(location?.description ?? fallback): \(error)")])
        }
    }

    /// The position an error of `IIOLayout` points at: the recorded position whose text is the
    /// error's source (a `type` or `index` value), else the `layout` mapping's.
    private func position(of error: IngestError, file: String) -> SourceLocation {
        let recorded = [location, timestampIndexLocation, timestampTypeLocation]
            + channels.flatMap { [$0.indexLocation, $0.typeLocation] }
        return recorded.compactMap { $0 }.first { $0.description == error.location.file }
            ?? location ?? SourceLocation(file: file)
    }
}

extension InputSpec {
    /// One issue per key of `units` that names none of `channels` (the input's channels of `x`).
    ///
    /// - Parameters:
    ///   - channels: the channel names the input gives (an iio layout's, after renaming).
    ///   - file: the pipeline file.
    ///   - index: the input's position in `inputs`.
    public func unitIssues(channels: [String], file: String, index: Int) -> [ConfigIssue] {
        units.enumerated().compactMap { i, entry in
            guard !channels.contains(entry.key) else { return nil }
            let place = i < unitLocations.count ? unitLocations[i] : SourceLocation(file: file)
            let at = place.line == nil ? "in \(file)" : "at \(place)"
            var message = "unknown channel `\(entry.key)` in `inputs[\(index)].units` \(at); the channels of this \(type.rawValue) input are "
                + channels.map { "`\($0)`" }.joined(separator: ", ")
            if let s = Text.suggestion(for: entry.key, among: channels) { message += "; did you mean `\(s)`?" }
            return ConfigIssue(location: place, message: message)
        }
    }
}
