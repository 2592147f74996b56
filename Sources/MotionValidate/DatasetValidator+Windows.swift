import MotionDataset

/// `splits.disjoint_windows` and `windows.time_order`: rules across the windows of a split or
/// of the whole dataset (docs/validate.md, "Consistency rules"), on what each file's scan kept
/// per row (`recording_index`, `start_time_s`, a hash of `x`).
extension _ValidationRun {
    /// Where window `row` of `file` is, as a reader of the report finds it: the row for HDF5,
    /// the sample key for shards.
    func windowName(_ file: String, _ row: Int, split: SplitName) -> String {
        if let numbers = fileWindowNumbers[file] ?? nil, row < numbers.count {
            let n = String(numbers[row])
            return "window \(numbers[row]) (sample `\(split.rawValue)-\(String(repeating: "0", count: max(0, 9 - n.count)))\(n)`)"
        }
        return "window \(row)"
    }

    /// `splits.disjoint_windows`: a window is the same window when its `x` is the same, bit for
    /// bit (compared through a 64-bit hash of the row). The same recording in two splits is
    /// `splits.disjoint_recordings`; this finds a window copied into another split under another
    /// recording or start time.
    func checkDisjointWindows() {
        guard manifest.files.allSatisfy({ scans[$0.path]?.rowXHashes != nil }) else {
            builder.skip(.splitsDisjointWindows, "`x` of some files could not be read")
            return
        }
        builder.ran(.splitsDisjointWindows)
        let values = manifest.windowLength * manifest.channelNames.count
        var first: [UInt64: (split: SplitName, file: String, row: Int)] = [:]
        for f in manifest.files {
            guard let hashes = scans[f.path]?.rowXHashes else { continue }
            // Per other split: how many windows of this file are also there, and the first.
            var found: [SplitName: (count: Int, row: Int, other: (file: String, row: Int))] = [:]
            for (row, h) in hashes.enumerated() {
                if let o = first[h] {
                    if o.split != f.split {
                        if let seen = found[o.split] { found[o.split]!.count = seen.count + 1 }
                        else { found[o.split] = (1, row, (o.file, o.row)) }
                    }
                } else {
                    first[h] = (f.split, f.path, row)
                }
            }
            for split in manifest.splitNames {
                guard let d = found[split] else { continue }
                builder.fail(.splitsDisjointWindows, f.path,
                             "\(windowName(f.path, d.row, split: f.split)) of split `\(f.split.rawValue)` has the same `x` (all \(values) values, bit for bit) as \(windowName(d.other.file, d.other.row, split: split)) of `\(d.other.file)` in split `\(split.rawValue)`; \(d.count) window(s) of this file are also in split `\(split.rawValue)`: a window in two splits leaks between training and evaluation")
            }
        }
    }

    /// `windows.time_order`: in window order (rows of a split's HDF5 file; a shard's sample key
    /// numbers), each window of a recording starts later than the one before it in that
    /// recording.
    func checkTimeOrder() {
        guard manifest.files.allSatisfy({ scans[$0.path]?.rowRecordings != nil && scans[$0.path]?.rowStartTimes != nil }) else {
            builder.skip(.windowsTimeOrder, "the `recording_index` or `start_time_s` of some files could not be read")
            return
        }
        builder.ran(.windowsTimeOrder)
        for split in manifest.splitNames {
            let files = manifest.splits[split]?.files ?? []
            // (order, file, row) for every window of the split.
            var rows: [(order: Int, file: Int, row: Int)] = []
            for (fi, f) in files.enumerated() {
                guard let scan = scans[f.path], let n = scan.rowRecordings?.count, scan.rowStartTimes?.count == n else { continue }
                let numbers = fileWindowNumbers[f.path] ?? nil
                for r in 0..<n {
                    let order = numbers.map { r < $0.count ? $0[r] : Int.max } ?? (rows.count)
                    rows.append((order, fi, r))
                }
            }
            if files.contains(where: { fileWindowNumbers[$0.path] != nil && fileWindowNumbers[$0.path]! != nil }) {
                rows.sort { $0.order != $1.order ? $0.order < $1.order : ($0.file, $0.row) < ($1.file, $1.row) }
            }
            var last: [Int32: (time: Double, file: Int, row: Int)] = [:]
            var bad: [Int: (count: Int, row: Int, recording: Int32, time: Double, previous: (time: Double, file: Int, row: Int))] = [:]
            for w in rows {
                let scan = scans[files[w.file].path]!
                let rec = scan.rowRecordings![w.row], t = scan.rowStartTimes![w.row]
                guard rec >= 0, Int(rec) < manifest.recordings.count, t.isFinite else { continue }
                if let p = last[rec], !(t > p.time) {
                    if let b = bad[w.file] { bad[w.file]!.count = b.count + 1 }
                    else { bad[w.file] = (1, w.row, rec, t, p) }
                }
                last[rec] = (t, w.file, w.row)
            }
            for fi in bad.keys.sorted() {
                let b = bad[fi]!, f = files[fi]
                let previous = windowName(files[b.previous.file].path, b.previous.row, split: split)
                    + (b.previous.file == fi ? "" : " of `\(files[b.previous.file].path)`")
                builder.fail(.windowsTimeOrder, f.path,
                             "`start_time_s` goes back within recording `\(manifest.recordings[Int(b.recording)])`: \(windowName(f.path, b.row, split: split)) starts at \(b.time) s, but \(previous), the window before it in that recording, starts at \(b.previous.time) s; each window of a recording must start later than the one before it (\(b.count) window(s) of this file do not)")
            }
        }
    }
}
