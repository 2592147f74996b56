import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionInputs
import MotionInspect

// The draft pipeline's text, commented, and the notes of init's summary.

extension PipelineDraft {
    // MARK: - Rendering

    static let niceRates: [Double] = [1, 2, 5, 10, 20, 25, 30, 50, 60, 100, 120, 200, 250, 400, 500, 1000]

    /// The pipeline's text, and the notes for init's summary (where the labels come from, or why
    /// there are none; how the split is made).
    static func render(_ groups: [Group], dataDirectory: String, pipelinePath: String, findings: [Finding]) -> (yaml: String, notes: [String]) {
        var notes: [String] = []
        let base = relativePath(from: parentDirectory(pipelinePath), to: dataDirectory)
        let allFiles = groups.flatMap(\.files)
        let csvGroups = groups.filter { if case .csv = $0.kind { return true }; return false }
        // Files of several inputs in one folder: the folder is the recording.
        let presetFolders = groups.contains { if case .preset(let m) = $0.kind { return m.app.readsFolders }; return false }
        let folderRecordings = presetFolders || (Set(csvGroups.map { parentDirectory($0.files[0]) }).count < csvGroups.reduce(0) { $0 + $1.files.count }
            && csvGroups.count > 1)
        let depth = allFiles.map { folders($0).count }.min() ?? 0
        let recordingLevels = folderRecordings ? 1 : 0
        // Levels above the recording, outermost first (index 0 = first folder under DATA_DIR).
        var subjectLevel: Int?
        var labelLevel: Int?
        let hasRowLabels = groups.contains { !$0.labels.isEmpty }
        // Why each folder level is or is not the labels' (said in init's summary).
        var levelNotes: [String] = []
        func shown(_ names: [String]) -> String {
            names.prefix(3).map { "`\(YAMLText.comment($0))`" }.joined(separator: ", ") + (names.count > 3 ? " …" : "")
        }
        for level in 0..<max(0, depth - recordingLevels) {
            let names = Set(allFiles.map { folders($0)[level] })
            if subjectLevel == nil && names.allSatisfy(isSubjectLike) {
                subjectLevel = level
                levelNotes.append("folders \(shown(distinct(Array(names)))) are subjects")
                continue
            }
            if !hasRowLabels && labelLevel == nil && names.count >= 2 && names.count <= 50
                && names.allSatisfy({ n in n.contains { $0.isLetter } && !isSubjectLike(n) }) {
                labelLevel = level
                continue
            }
            levelNotes.append("folders \(shown(distinct(Array(names)))) " + (names.count < 2 ? "are one name" : names.count > 50 ? "are \(names.count) names (activities are 2–50)" : names.contains { n in !n.contains { $0.isLetter } } ? "include names without letters" : "include subject-like names")
                              + (subjectLevel == nil ? ", taken as the subjects" : ""))
            if subjectLevel == nil { subjectLevel = level }
        }
        // The recording folders themselves named after the activity (`iphone13/Squats/Accelerometer.csv`,
        // `Walking_2/`): names that, without the digits and separators at their ends, are 2–50
        // activities with letters; numbered folders of one kind (`rec-01`, `rec-02`) are not. A
        // folder's name can as well be a person's (`data/alice/`), so the folders must sit in a
        // folder of their own (a device or person), and either one activity name recurs in two
        // such folders (the same activities recorded by each) or most names hold an activity word
        // (`Walking`, `Squats`, `sit_down`: ``activityWords``).
        var labelMap: [(String, String)] = []
        var recordingFolderLabels = false
        if !hasRowLabels && labelLevel == nil && folderRecordings && depth >= 1 {
            let level = depth - 1
            let sameDepth = allFiles.allSatisfy { folders($0).count == depth }
            let names = distinct(allFiles.map { folders($0)[level] })
            let activities = distinct(names.map(activityName))
            var parentsOf: [Text.Bytes: Set<Text.Bytes>] = [:]
            if depth >= 2 {
                for f in allFiles { parentsOf[Text.Bytes(activityName(folders(f)[level])), default: []].insert(Text.Bytes(folders(f)[level - 1])) }
            }
            let recurs = parentsOf.values.contains { $0.count >= 2 }
            let worded = activities.filter(hasActivityWord).count * 2 >= activities.count
            if !sameDepth {
                levelNotes.append("recording folders sit at different depths")
            } else if activities.count < 2 || activities.count > 50 || activities.contains(where: { a in !a.contains { $0.isLetter } })
                        || names.contains(where: isSubjectLike) {
                levelNotes.append("recording folders \(shown(names)) " + (activities.count < 2 ? "are numbered names of one kind" : activities.count > 50 ? "are \(activities.count) different names (activities are 2–50)" : "are not activity names"))
            } else if depth < 2 || !(recurs || worded) {
                levelNotes.append("recording folders \(shown(names)) may be activities or people: "
                                  + (depth < 2 ? "they sit in no folder of their own" : "no name recurs in two folders and most hold no activity word")
                                  + "; if they name activities, set `labels: {from: path, template: \"{dir}\", classes: [...]}`")
            } else {
                labelLevel = level
                recordingFolderLabels = true
                labelMap = names.compactMap { n in activityName(n) == n ? nil : (n, activityName(n)) }
            }
        }
        func template(_ level: Int) -> String {
            // {dir:N} counts up from the file: its folder is {dir:1}.
            let n = depth - level
            return n == 1 ? "{dir}" : "{dir:\(n)}"
        }
        let name = PathText.stem(pipelinePath) == "pipeline" ? PathText.lastComponent(dataDirectory) : PathText.stem(pipelinePath)

        var y: [String] = []
        y.append("# A pipeline drafted by `motionprep init` from \(findings.count) file(s) in \(YAMLText.comment(PathText.lastComponent(dataDirectory))).")
        y.append("# Check the lines marked `check`, then: motionprep validate \(YAMLText.comment(PathText.lastComponent(pipelinePath))) && motionprep run \(YAMLText.comment(PathText.lastComponent(pipelinePath)))")
        y.append("# Every key with its default and unit: docs/pipeline.md.")
        y.append("version: 1")
        y.append("name: \(YAMLText.quoted(sanitizedName(name)))")
        y.append("inputs:")
        var channelNamesUsed: Set<String> = []
        var presetChosen: [String: [String]] = [:]
        var presetCommon: [String: [String]] = [:]
        var rates: [Double] = []
        let allPatterns = patterns(groups, base: base, findings: findings)
        func paths(_ ps: [String], note: String = "") -> String {
            // One pattern on the line; a list of files one per line.
            if ps.count == 1 { return "    paths: [\(YAMLText.doubleQuoted(ps[0]))]" + note }
            return "    paths:" + note + "\n" + ps.map { "      - " + YAMLText.doubleQuoted($0) }.joined(separator: "\n")
        }
        for (gi, g) in groups.enumerated() {
            let pattern = allPatterns[gi]
            let rate = SlowStreams.median(g.rates)
            if let r = rate { rates.append(r) }
            let rateNote = rate.map { String(format: "~%.1f Hz", $0) } ?? "rate unknown"
            switch g.kind {
            case .preset(let m):
                // Sensors every recording has; the preset's defaults first, the others listed.
                let units = g.sensorsByUnit.values
                let common = g.presetSensors.filter { s in units.allSatisfy { $0.contains(s) } }
                let preferred = common.filter { ["Accelerometer", "Gyroscope"].contains($0) }
                let chosen = preferred.isEmpty ? common : preferred
                let others = common.filter { !chosen.contains($0) }
                presetChosen[g.key] = chosen
                presetCommon[g.key] = chosen + others
                let missing = g.presetSensors.filter { !common.contains($0) }
                y.append("  # \(m.app.title): \(g.sensorsByUnit.count) recording(s)" + (rate.map { String(format: ", ~%.1f Hz", $0) } ?? "")
                         + "; units as the app writes them, converted to SI (docs/inputs.md, Phone-logger presets)")
                y.append("  - type: \(m.app.rawValue)")
                let depth = g.files.map { folders($0).count }.min() ?? 0
                if m.app.readsFolders {
                    let folderDepth = max(depth, 1)
                    let glob = (base == "." ? "" : Glob.escape(base) + "/") + Array(repeating: "*", count: folderDepth).joined(separator: "/")
                    y.append(paths([glob], note: "   # the export folders, one per recording"))
                } else {
                    y.append(paths(pattern))
                }
                y.append("    sensors: [\(chosen.map(YAMLText.quoted).joined(separator: ", "))]"
                         + (others.isEmpty ? "" : "   # also in every recording: \(YAMLText.comment(others.joined(separator: ", ")))")
                         + (missing.isEmpty ? "" : "; missing from some: \(YAMLText.comment(missing.joined(separator: ", ")))"))
                y += presetOptionLines(m)
            case .motioncollector:
                y.append("  # \(g.files.count) MotionCollector file(s), \(rateNote)" + (g.labels.isEmpty ? "" : ", labels in rows: \(YAMLText.comment(g.labels.joined(separator: ", ")))"))
                y.append("  - type: motioncollector")
                y.append(paths(pattern))
                let common = g.commonStreams ?? []
                if !common.isEmpty {
                    let missing = g.anyStreams.filter { !common.contains($0) }
                    y.append("    sensors: [\(common.map(YAMLText.quoted).joined(separator: ", "))]   # the sensors every file has" + (missing.isEmpty ? "" : " (\(YAMLText.comment(missing.joined(separator: ", "))) missing from some)"))
                }
            case .cwa(let gyro):
                y.append("  # \(g.files.count) Axivity CWA file(s), \(rateNote)" + (gyro ? ", with the gyroscope" : ""))
                y.append("  - type: cwa")
                y.append(paths(pattern))
                y.append("    sensors: [" + (gyro ? "acc, gyro" : "acc") + "]   # also: temperature (one reading per block)")
            case .gt3x:
                y.append("  # \(g.files.count) ActiGraph GT3X file(s), \(rateNote)")
                y.append("  - type: gt3x")
                y.append(paths(pattern))
                y.append("    sensors: [acc]")
            case .iio(let layout):
                y.append("  # \(g.files.count) IIO dump(s) with a copied sysfs folder, \(rateNote)")
                y.append("  - type: iio")
                y.append(paths(pattern))
                y.append("    layout: \(YAMLText.quoted(layout))")
            case .csv(let guess, let stem):
                let named = g.stems.count > 1 ? "\(g.files.count) file(s) with the same columns (\(g.stems.prefix(3).joined(separator: ", "))\(g.stems.count > 3 ? " …" : "")), one recording each"
                    : "\(g.files.count) file(s) named \(stem)"
                y.append("  # \(YAMLText.comment(named)), \(rateNote); time `\(YAMLText.comment(guess.timeColumn!))` in \(guess.timeUnit!.rawValue): \(YAMLText.comment(guess.timeReason))")
                y.append("  - type: csv")
                y.append(paths(pattern))
                if let sensor = streamName(g) { y.append("    sensor: \(YAMLText.quoted(sensor))   # the stream's name in every file (else each file's stem)") }
                if guess.delimiter != UInt8(ascii: ",") && !guess.sepLine { y.append("    delimiter: \(YAMLText.quoted(guess.delimiterText))") }
                if guess.skipLines > 0 { y.append("    skip_lines: \(guess.skipLines)") }
                if folderRecordings { y.append("    recording: \"{dirpath}\"   # the files of one folder are one recording") }
                y.append("    time: {column: \(YAMLText.quoted(guess.timeColumn!)), unit: \(guess.timeUnit!.rawValue)}")
                let prefix = sensorPrefix(stem)
                var names = CSVFileReport.channelNames(guess.valueColumns)
                if groups.count > 1 { names = names.map { $0.hasPrefix(prefix + "_") || $0 == prefix ? $0 : prefix + "_" + $0 } }
                names = names.map { n in var u = n, k = 2; while channelNamesUsed.contains(u) { u = "\(n)_\(k)"; k += 1 }; channelNamesUsed.insert(u); return u }
                y.append("    channels:   # check: output name: column")
                for (n, c) in zip(names, guess.valueColumns) { y.append("      \(n): \(YAMLText.quoted(c))") }
                y.append("    # units: {\(names.prefix(3).map { "\($0): ?" }.joined(separator: ", "))}   # check: each channel's unit as written (g, m/s^2, rad/s, deg/s, uT, kPa…; docs/inputs.md, Units)")
                if let l = guess.labelColumn, !g.labels.isEmpty { y.append("    label_column: \(YAMLText.quoted(l))") }
            }
            if let s = subjectLevel {
                let examples = distinct(g.files.map { folders($0)[s] })
                y.append("    subject: \(YAMLText.quoted(template(s)))   # the folder \(YAMLText.comment(examples.prefix(3).joined(separator: ", ")))\(examples.count > 3 ? " …" : "")")
            } else {
                y.append("    # no subject folders were found: each recording is its own subject; check: set `subject:` if you know who recorded what")
                y.append("    subject: \(YAMLText.quoted(folderRecordings ? "{dirpath}" : "{stem}"))")
            }
        }
        let slowest = rates.filter { $0 >= 10 }.min() ?? rates.min()
        let rate = slowest.map { r in niceRates.last { $0 <= r * 1.05 } ?? 1 } ?? 50
        y.append("resample:")
        y.append("  rate_hz: \(MessageNumber.number(rate))" + (slowest.map { String(format: "   # check: the slowest motion stream runs at ~%.1f Hz", $0) } ?? ""))
        // A stream slower than 12.5 Hz has intervals over the default max_gap_s (0.2 s): give it
        // 2.5 of its intervals, so that its samples are not all gaps. Every kind of input: a
        // preset's sensors every recording has (those left out of `sensors` too, so that adding
        // Sensor Logger's Barometer works as the comment says), AndroSensor's one stream, a csv
        // stream, MotionCollector's sensors; an iio stream (named by each file's stem) raises the default.
        var slow: [(String, Double)] = []
        var slowDefault = 0.2
        func note(_ name: String, _ r: Double?) {
            guard let r, r > 0, r < SlowStreams.slowBelowHz else { return }
            let gap = SlowStreams.suggestedMaxGap(medianIntervalS: 1 / r)
            if let i = slow.firstIndex(where: { $0.0 == name }) { slow[i].1 = Swift.max(slow[i].1, gap) } else { slow.append((name, gap)) }
        }
        for g in groups {
            switch g.kind {
            case .preset(let m) where m.app.readsFolders:
                for sensor in presetCommon[g.key] ?? [] { note(sensor, SlowStreams.median(g.rateBySensor[sensor] ?? [])) }
            case .preset:
                note("AndroSensor", SlowStreams.median(g.rates))
            case .csv(_, let stem):
                note(streamName(g) ?? stem, SlowStreams.median(g.rates))
            case .motioncollector:
                for sensor in g.commonStreams ?? [] { note(sensor, SlowStreams.median(g.rateByStream[sensor] ?? [])) }
            case .cwa, .gt3x:
                break
            case .iio:
                if let r = SlowStreams.median(g.rates), r < SlowStreams.slowBelowHz { slowDefault = Swift.max(slowDefault, SlowStreams.suggestedMaxGap(medianIntervalS: 1 / r)) }
            }
        }
        if !slow.isEmpty || slowDefault != 0.2 {
            y.append("  max_gap_s: {default: \(MessageNumber.number(slowDefault))" + slow.map { ", \(YAMLText.quoted($0.0)): \(MessageNumber.number($0.1))" }.joined()
                     + "}   # slow streams: 2.5 of their intervals (a sample further apart than max_gap_s is a gap)")
        }
        y.append("window:")
        y.append("  length_s: 2.56     # check: the window your model takes")
        y.append("  stride_s: 1.28")
        let labels = groups.flatMap(\.labels)
        var classes: [String] = []
        for l in distinct(labels) { classes.append(l) }
        if !classes.isEmpty {
            y.append("labels:")
            y.append("  from: \(groups.first { !$0.labels.isEmpty }?.labelSource ?? "rows")")
            y.append("  classes: [\(classes.sorted(by: Text.utf8Less).map(YAMLText.quoted).joined(separator: ", "))]   # every label found in the files")
            notes.append("labels: from the files' label rows (\(classes.count) class(es))")
        } else if let l = labelLevel, recordingFolderLabels {
            let names = distinct(allFiles.map { folders($0)[l] })
            let activities = distinct(names.map(activityName))
            y.append("labels:   # from the name of each recording's folder: one activity per folder")
            y.append("  from: path")
            y.append("  template: \(YAMLText.quoted(template(l)))")
            if !labelMap.isEmpty {
                y.append("  map: {\(labelMap.map { "\(YAMLText.quoted($0.0)): \(YAMLText.quoted($0.1))" }.joined(separator: ", "))}   # the folder name without its number")
            }
            y.append("  classes: [\(activities.map(YAMLText.quoted).joined(separator: ", "))]")
            notes.append("labels: from the recording folders' names (\(shown(activities))): no file has a label column, and each recording folder is named after an activity")
        } else if let l = labelLevel {
            let names = distinct(allFiles.map { folders($0)[l] })
            y.append("labels:   # from the folder each recording sits in")
            y.append("  from: path")
            y.append("  template: \(YAMLText.quoted(template(l)))")
            y.append("  classes: [\(names.map(YAMLText.quoted).joined(separator: ", "))]")
            notes.append("labels: from the folders \(shown(names)) (`\(template(l))`): no file has a label column")
        } else {
            y.append("# no labels were found (no label column, no activity folders): windows are unlabelled (y = -1)")
            notes.append("no labels: no file has a label column, and no folder names activities"
                         + (levelNotes.isEmpty ? " (the files sit in no folder)" : " (" + levelNotes.joined(separator: "; ") + ")"))
        }
        // Subjects (or recordings when no folder names them): with few, fractions that give every
        // split at least one, so that `allocation: exact` leaves none empty.
        let units: Int = {
            if let s = subjectLevel { return distinct(allFiles.map { folders($0)[s] }).count }
            return folderRecordings ? distinct(allFiles.map(parentDirectory)).count : allFiles.count
        }()
        // Hundredths that add up to 1 exactly in decimal: validation and test just under 1/n
        // each, which largest-remainder allocation rounds up to one each.
        func fractions(_ n: Int, _ what: String) -> String? {
            if n >= 3 && n < 10 {
                let hundredths = 100 / n
                let one = String(format: "0.%02d", hundredths), train = String(format: "0.%02d", 100 - 2 * hundredths)
                return "  fractions: {train: \(train), validation: \(one), test: \(one)}   # \(n) \(what): \(n - 2) / 1 / 1"
            }
            if n == 2 { return "  fractions: {train: 0.5, validation: 0, test: 0.5}   # 2 \(what): 1 / 0 / 1" }
            if n == 1 { return "  fractions: {train: 1, validation: 0, test: 0}   # 1 \(what.replacingOccurrences(of: "subjects", with: "subject").replacingOccurrences(of: "recordings", with: "recording")): nothing to hold out" }
            return nil
        }
        // The recordings, and each one's class when the labels come from the path.
        let recordingOf: (String) -> String = { folderRecordings ? parentDirectory($0) : $0 }
        let recordings = distinct(allFiles.map(recordingOf))
        var classOf: [String: String] = [:]
        if classes.isEmpty, let l = labelLevel {
            for f in allFiles { classOf[recordingOf(f)] = recordingFolderLabels ? activityName(folders(f)[l]) : folders(f)[l] }
        }
        y.append("split:")
        // No subject folders with labels from the path: every recording is its own subject
        // anyway, so they are split as recordings, stratified.
        let unnamedSubjects = subjectLevel == nil && !classOf.isEmpty
        if (subjectLevel != nil && units == 1 || unnamedSubjects) && recordings.count >= 3 {
            // One subject, none to hold out: recordings are split instead; with labels from
            // the path, each class's recordings on their own (docs/pipeline.md, "Splits and folds").
            let who = unnamedSubjects ? "no subject folders" : "1 subject"
            y.append(unnamedSubjects
                     ? "  # no subject folders: each recording is its own subject, so recordings are split (check: if one person recorded several, they may sit in several splits)"
                     : "  # 1 subject: none to hold out, so recordings are split (validation and test then measure new recordings of the same person, not new people)")
            y.append("  by: recording")
            y.append("  allocation: exact   # each split gets its share of recordings, by count")
            if !classOf.isEmpty {
                var perClass: [String: Int] = [:]
                for r in recordings { if let c = classOf[r] { perClass[c, default: 0] += 1 } }
                let smallest = perClass.values.min() ?? 0
                y.append("  stratify: label     # each class's recordings are shared out on their own, so every split gets every class it can")
                if let line = fractions(smallest, "recordings in the smallest class") { y.append(line) }
                notes.append("split: \(who), so by recording, stratified by label (\(perClass.count) classes, \(smallest) recording(s) in the smallest)"
                             + (smallest < 3 ? "; a class needs 3 recordings for every split to have it" : ""))
            } else {
                if let line = fractions(recordings.count, "recordings") { y.append(line) }
                notes.append("split: \(who), so by recording" + (classes.isEmpty ? "" : " (not stratified: `stratify: label` needs labels from the path, these come from rows)"))
            }
        } else {
            y.append("  by: subject")
            y.append("  allocation: exact   # each split gets its share of subjects, by count")
            if let line = fractions(units, "subjects") { y.append(line) }
            if units == 2 && recordings.count >= 3 {
                y.append("  # 2 subjects leave none for validation; `by: recording` (with `stratify: label` when labels come from the path) would give every split recordings, mixing the two people across splits")
            }
        }
        y.append("output:")
        y.append("  type: hdf5")
        y.append("  path: \(YAMLText.quoted("build/" + sanitizedName(name)))")
        return (y.joined(separator: "\n") + "\n", notes)
    }

    /// Globs relative to the pipeline's folder matching exactly each group's files: `**/NAME`
    /// when no other file found has that name, `**/*.EXT` when no other file has that
    /// extension, else the files listed; names are escaped (``Glob/escape(_:)``), so that a `*`,
    /// `?`, `[` or backslash in a file or folder name matches only itself.
    static func patterns(_ groups: [Group], base: String, findings: [Finding]) -> [[String]] {
        let prefix = base == "." ? "" : Glob.escape(base) + "/"
        // `csv.gz` for a compressed `rec.csv.gz` (docs/inputs.md, "Compressed files").
        func ext(_ name: String) -> String? {
            let inner = PathText.dropCompressionSuffix(name)
            guard let dot = inner.lastIndex(of: "."), dot != inner.startIndex else { return nil }
            return String(inner[inner.index(after: dot)...]) + name.dropFirst(inner.count)
        }
        // The group whose files have a name (or extension): its index, or -1 when files of
        // several groups, or files not used, have it.
        var nameOwner: [Text.Bytes: Int] = [:], extOwner: [Text.Bytes: Int] = [:]
        var groupOf: [Text.Bytes: Int] = [:]
        for (i, g) in groups.enumerated() { for f in g.files { groupOf[Text.Bytes(f)] = i } }
        for f in findings {
            let owner = groupOf[Text.Bytes(f.path)] ?? -1
            let name = PathText.lastComponent(f.path)
            nameOwner[Text.Bytes(name)] = nameOwner[Text.Bytes(name)].map { $0 == owner ? owner : -1 } ?? owner
            if let e = ext(name) { extOwner[Text.Bytes(e)] = extOwner[Text.Bytes(e)].map { $0 == owner ? owner : -1 } ?? owner }
        }
        return groups.enumerated().map { (i, g) -> [String] in
            var names: [Text.Bytes: String] = [:], exts: [Text.Bytes: String] = [:]
            var noExt = false
            for f in g.files {
                let n = PathText.lastComponent(f)
                names[Text.Bytes(n)] = n
                if let e = ext(n) { exts[Text.Bytes(e)] = e } else { noExt = true }
            }
            if names.count == 1, let n = names.first, nameOwner[n.key] == i {
                return [prefix + "**/" + Glob.escape(n.value)]
            }
            if !noExt, exts.count == 1, let e = exts.first, extOwner[e.key] == i {
                return [prefix + "**/*." + Glob.escape(e.value)]
            }
            return g.files.map { prefix + Glob.escape($0) }
        }
    }
}
