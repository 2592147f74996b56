import Foundation
import MotionCore
import MotionZstd

/// A shard larger than its manifest entry allows (``ShardReader/read(path:maxArchiveBytes:)``).
public struct ShardSizeError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// One window of a shard: one WebDataset sample (docs/dataset-format.md, "Shards").
public struct ShardSample: Sendable, Equatable {
    /// `{split}-NNNNNNNNN`, the prefix every member of the sample shares.
    public var key: String
    /// The window's canonical number within the split: the key's digits.
    public var windowNumber: Int
    /// `{key}.y.cls`: the class id, −1 when unlabelled.
    public var classID: Int64
    /// From `{key}.json`.
    public var subject: String
    public var recording: String
    public var startTimeS: Double
    /// The class name, nil when unlabelled.
    public var label: String?
    /// Present when folds are on (−1 outside train).
    public var foldIndex: Int?
    /// The `qa` values in column order (`WindowBatch.qaColumns`), when the pipeline has `qa`.
    public var qa: [Float]? = nil
}

/// An array of a shard, gathered over its windows in archive order (`x` from the `x.npy`
/// members, `y` from the `y.cls` members, …), with the meaning of the HDF5 dataset of the same
/// name.
public struct ShardArray: Sendable, Equatable {
    /// `x`, `y`, `features`, `start_time_s` or `fold_index`.
    public var name: String
    /// numpy's dtype string: `<f4`, `<f8`, `<i4` or `<i8`.
    public var dtype: String
    public var shape: [Int]
    /// The raw little-endian element bytes, C order.
    public var data: [UInt8]

    /// Number of elements.
    public var elementCount: Int { shape.reduce(1, *) }

    /// The elements as `Float` (`<f4` only).
    /// - Throws: `MotionError(.dataError)` for another dtype.
    public func float32Values() throws -> [Float] { try values(Float.self, "<f4") }
    /// The elements as `Double` (`<f8` only).
    public func float64Values() throws -> [Double] { try values(Double.self, "<f8") }
    /// The elements as `Int64` (`<i8` only).
    public func int64Values() throws -> [Int64] { try values(Int64.self, "<i8") }
    /// The elements as `Int32` (`<i4` only).
    public func int32Values() throws -> [Int32] { try values(Int32.self, "<i4") }

    private func values<T: BitwiseCopyable>(_ type: T.Type, _ expected: String) throws -> [T] {
        guard dtype == expected else {
            throw MotionError(.dataError, "array `\(name)` has dtype \(dtype), not \(expected)")
        }
        return _ShardBytes.load(T.self, from: data)
    }
}

/// Everything in one shard: its samples and their arrays gathered in archive order.
public struct ShardContents: Sendable, Equatable {
    /// Member names in archive order.
    public var memberNames: [String]
    /// One per window, in archive order.
    public var samples: [ShardSample]
    /// `x` [N, T, C] `<f4`, `y` [N] `<i8`, `y_seq` [N, T] `<i8` (when the samples have it),
    /// `features` [N, F] `<f4` (when the samples have
    /// features), `start_time_s` [N] `<f8`, `fold_index` [N] `<i4` (when the samples have one).
    /// Empty for a shard with no window.
    public var arrays: [ShardArray]

    /// The array called `name`, if present.
    public func array(_ name: String) -> ShardArray? { arrays.first { $0.name == name } }

    /// Number of windows.
    public var numWindows: Int { samples.count }

    /// Windows per class id (ids outside `0 ..< classes` are not counted).
    public func classCounts(classes: Int) -> [Int] {
        var c = [Int](repeating: 0, count: classes)
        for s in samples where s.classID >= 0 && s.classID < Int64(classes) { c[Int(s.classID)] += 1 }
        return c
    }

    /// Each window's index into `names` of its subject (`recording: false`) or recording; −1 for
    /// a name not in the list.
    public func indices(into names: [String], recording: Bool) -> [Int32] {
        var lookup: [String: Int32] = [:]
        for (i, n) in names.enumerated() { lookup[n] = Int32(i) }
        return samples.map { lookup[recording ? $0.recording : $0.subject] ?? -1 }
    }
}

/// Reads a shard back (docs/dataset-format.md, "Shards"), for `motionprep validate`, `inspect`,
/// `report` and tests.
///
/// Checks the structure, not the dataset's rules: for `.tar.zst`, one zstd frame with content
/// size and checksum and nothing after it; ustar headers with correct checksums; only
/// regular-file members, grouped by key, each sample exactly `{key}.x.npy`, `{key}.y.cls`,
/// optionally `{key}.y_seq.npy` (`<i8` [T], `labels.per_sample`), optionally `{key}.features.npy`, optionally `{key}.x_normalized.npy` and (with features)
/// `{key}.features_normalized.npy` (`motionprep apply`), and `{key}.json`, in that order, every sample alike; the
/// npy members v1.0, C order, `<f4` (`y_seq.npy` `<i8`), with data matching their shape; `y.cls` an ASCII
/// integer; the JSON an object of `subject`, `recording`, `start_time_s`, `label` and
/// optionally `fold_index`. Key and file names, counts and values against the manifest are left
/// to the caller.
public enum ShardReader {
    /// Reads and checks one shard file (`.tar.zst`, or `.tar` read as is).
    /// - Throws: `MotionError` naming the file: `.noInput` when missing, `.ioError` when
    ///   unreadable, `.dataError` for anything malformed.
    public static func read(path: String) throws -> ShardContents {
        try read(path: path, maxArchiveBytes: nil)
    }

    /// Reads and checks one shard file whose archive may hold at most `maxArchiveBytes` bytes
    /// (``maximumArchiveBytes(windows:arrayRowElements:classes:)`` of its manifest entry), so a
    /// zstd "bomb" costs a refusal, not the memory it declares: a file longer than the most
    /// such an archive can compress to is not read, a frame whose header declares more content
    /// is not decompressed, and decompression writes into a buffer of the declared size, which
    /// libzstd never overruns (a frame that expands past its declared size fails).
    /// - Throws: ``ShardSizeError`` when a bound is exceeded; otherwise as ``read(path:)``.
    public static func read(path: String, maxArchiveBytes: Int?) throws -> ShardContents {
        let compressed = !path.hasSuffix(".tar")
        // Above ZSTD_compressBound: the most a frame of that much content takes (incompressible
        // blocks), plus its header. A plain tar is at most the bound itself.
        let maxFileBytes = maxArchiveBytes.map {
            compressed ? ($0 > Int.max / 2 ? Int.max : $0 + $0 >> 7 + (128 << 10)) : $0
        }
        let bytes = try _ShardFile.readAll(path, maxBytes: maxFileBytes)
        if compressed, let maxArchiveBytes, let declared = try? ZstdFrameHeader(parsing: bytes).contentSize,
           declared > UInt64(maxArchiveBytes) {
            throw ShardSizeError(message: "shard \(path) declares \(declared) bytes of content in its zstd frame header, more than the \(maxArchiveBytes) its manifest entry allows; it is not decompressed")
        }
        do {
            return compressed ? try read(compressed: bytes) : try read(archive: bytes)
        } catch let e as MotionError {
            throw MotionError(e.exitStatus, "shard \(path) is malformed: \(e.message)")
        }
    }

    /// The most bytes of JSON one window's `{key}.json` may take in the bound below.
    public static let maximumJSONBytes = 16 << 10

    /// The most bytes the tar archive of a shard can legitimately hold, per window: every array
    /// row at 8 bytes an element (the widest dtype), four times a tar header, tar padding and
    /// 4 KiB of npy header or class id (room for the up to seven members a sample has, `y_seq.npy`
    /// and `apply`'s normalised arrays included, each needing at most 1.2 KiB of these), and a `{key}.json` of at most
    /// ``maximumJSONBytes``; plus the end blocks, a tar record and 1 MiB of slack. Saturates at
    /// `Int.max` rather than overflow.
    ///
    /// The one place that knows how large a shard may be: change it with the shard format.
    /// - Parameters:
    ///   - windows: the windows the manifest lists for the shard.
    ///   - arrayRowElements: elements in one row (window) of each array.
    ///   - classes: the dataset's classes (unused since every sample names its own label; kept
    ///     so callers need not change).
    public static func maximumArchiveBytes(windows: Int, arrayRowElements: [Int], classes: Int) -> Int {
        let block = TarWriter.blockSize
        var perWindow = 4 * (2 * block + 4096) + maximumJSONBytes
        for elements in arrayRowElements {
            let (bytes, o1) = max(0, elements).multipliedReportingOverflow(by: 8)
            let (sum, o2) = perWindow.addingReportingOverflow(bytes)
            guard !o1, !o2 else { return Int.max }
            perWindow = sum
        }
        let (data, o3) = perWindow.multipliedReportingOverflow(by: max(0, windows))
        let (total, o4) = data.addingReportingOverflow(22 * block + (1 << 20))
        return o3 || o4 ? Int.max : total
    }

    /// Reads a shard from its compressed bytes.
    /// - Throws: `MotionError(.dataError)` for anything malformed.
    public static func read(compressed bytes: [UInt8]) throws -> ShardContents {
        try read(archive: Zstd.decompressFrame(bytes))
    }

    /// Reads a shard from its uncompressed tar bytes.
    /// - Throws: `MotionError(.dataError)` for anything malformed.
    public static func read(archive: [UInt8]) throws -> ShardContents {
        let members = try TarReader.members(archive)
        var samples: [ShardSample] = []
        var x: [UInt8] = [], features: [UInt8] = [], y: [Int64] = [], start: [Double] = [], fold: [Int32] = []
        var xShape: [Int]?, fShape: [Int]?, sShape: [Int]?
        var hasFeatures: Bool?, hasFold: Bool?, hasYSeq: Bool?
        var hasQA: Bool?
        var qa: [Float] = []
        var ySeq: [UInt8] = []
        // `motionprep apply`'s samples also have `{key}.x_normalized.npy` (and
        // `{key}.features_normalized.npy` with features) after `features.npy` (docs/dataset-format.md,
        // "Applied windows"); a dataset's shard holding them fails validate's `arrays.shape`.
        var xNormalized: [UInt8] = [], featuresNormalized: [UInt8] = []
        var hasNormalized: Bool?
        var m = 0
        func npy(_ member: TarReader.Member, rank: Int, dtype: String = "<f4") throws -> (shape: [Int], data: ArraySlice<UInt8>) {
            let (h, offset): (NPYHeader, Int)
            do {
                (h, offset) = try NPYHeader.parse(archive[member.data])
            } catch let e as MotionError {
                throw MotionError(.dataError, "member `\(member.name)`: \(e.message)")
            }
            guard !h.fortranOrder else { throw MotionError(.dataError, "member `\(member.name)` is in Fortran order; expected C order") }
            guard h.descr == dtype else { throw MotionError(.dataError, "member `\(member.name)` has dtype \(h.descr); expected \(dtype)") }
            guard h.shape.count == rank else {
                throw MotionError(.dataError, "member `\(member.name)` has shape \(h.shapeLiteral); expected \(rank) dimension(s)")
            }
            let expected = h.elementCount * (dtype == "<i8" ? 8 : 4), actual = member.data.count - offset
            guard actual == expected else {
                throw MotionError(.dataError, "member `\(member.name)` holds \(actual) data bytes; shape \(h.shapeLiteral) of \(dtype) needs \(expected)")
            }
            return (h.shape, archive[(member.data.lowerBound + offset)..<member.data.upperBound])
        }
        while m < members.count {
            let first = members[m]
            guard let dot = first.name.firstIndex(of: "."), first.name[dot...] == ".x.npy" else {
                throw MotionError(.dataError, "member `\(first.name)` at byte \(first.headerOffset) does not start a sample; expected `{key}.x.npy`")
            }
            let key = String(first.name[..<dot])
            guard let digitsStart = key.lastIndex(of: "-"), let number = Int(key[key.index(after: digitsStart)...]),
                  key[key.index(after: digitsStart)...].allSatisfy(\.isASCII) else {
                throw MotionError(.dataError, "sample key `\(key)` is not `{split}-NNNNNNNNN`")
            }
            var names = [".x.npy", ".y.cls"]
            if m + 2 < members.count, members[m + 2].name == key + ".y_seq.npy" { names.append(".y_seq.npy") }
            let withYSeq = names.count == 3
            if m + names.count < members.count, members[m + names.count].name == key + ".features.npy" { names.append(".features.npy") }
            let withFeatures = names.contains(".features.npy")
            let featuresAt = m + (withYSeq ? 3 : 2)
            let normalizedAt = m + names.count
            if normalizedAt < members.count, members[normalizedAt].name == key + ".x_normalized.npy" {
                names.append(".x_normalized.npy")
                if withFeatures { names.append(".features_normalized.npy") }
            }
            let withNormalized = names.contains(".x_normalized.npy")
            names.append(".json")
            guard m + names.count <= members.count, zip(members[m..<(m + names.count)], names).allSatisfy({ $0.name == key + $1 }) else {
                let got = members[m..<min(members.count, m + names.count)].map { "`\($0.name)`" }.joined(separator: ", ")
                throw MotionError(.dataError, "sample `\(key)` has the members \(got); expected \(names.map { "`\(key)\($0)`" }.joined(separator: ", "))")
            }
            if let h = hasNormalized, h != withNormalized {
                throw MotionError(.dataError, "sample `\(key)` \(withNormalized ? "has" : "has no") `x_normalized.npy` member, unlike the samples before it")
            }
            hasNormalized = withNormalized
            if let h = hasFeatures, h != withFeatures {
                throw MotionError(.dataError, "sample `\(key)` \(withFeatures ? "has" : "has no") `features.npy` member, unlike the samples before it")
            }
            hasFeatures = withFeatures
            if let h = hasYSeq, h != withYSeq {
                throw MotionError(.dataError, "sample `\(key)` \(withYSeq ? "has" : "has no") `y_seq.npy` member, unlike the samples before it")
            }
            hasYSeq = withYSeq
            let (xs, xd) = try npy(members[m], rank: 2)
            if let s = xShape, s != xs { throw MotionError(.dataError, "member `\(members[m].name)` has shape \(xs); the samples before it have \(s)") }
            xShape = xs
            x += xd
            let clsText = String(decoding: archive[members[m + 1].data], as: UTF8.self)
            guard let cls = Int64(clsText), clsText.allSatisfy(\.isASCII) else {
                throw MotionError(.dataError, "member `\(members[m + 1].name)` holds \(clsText.debugDescription); expected a class id in ASCII decimal")
            }
            y.append(cls)
            if withYSeq {
                let (ss, sd) = try npy(members[m + 2], rank: 1, dtype: "<i8")
                if let s = sShape, s != ss { throw MotionError(.dataError, "member `\(members[m + 2].name)` has shape \(ss); the samples before it have \(s)") }
                sShape = ss
                ySeq += sd
            }
            if withFeatures {
                let (fs, fd) = try npy(members[featuresAt], rank: 1)
                if let s = fShape, s != fs { throw MotionError(.dataError, "member `\(members[featuresAt].name)` has shape \(fs); the samples before it have \(s)") }
                fShape = fs
                features += fd
            }
            if withNormalized {
                let at = featuresAt + (withFeatures ? 1 : 0)
                let (xns, xnd) = try npy(members[at], rank: 2)
                guard xns == xs else { throw MotionError(.dataError, "member `\(members[at].name)` has shape \(xns); its `x.npy` has \(xs)") }
                xNormalized += xnd
                if withFeatures {
                    let (fns, fnd) = try npy(members[at + 1], rank: 1)
                    guard fns == fShape else { throw MotionError(.dataError, "member `\(members[at + 1].name)` has shape \(fns); its `features.npy` has \(fShape ?? [])") }
                    featuresNormalized += fnd
                }
            }
            let jsonMember = members[m + names.count - 1]
            let sample = try parseJSON(archive[jsonMember.data], member: jsonMember.name, key: key, number: number, classID: cls)
            if let h = hasFold, h != (sample.foldIndex != nil) {
                throw MotionError(.dataError, "member `\(jsonMember.name)` \(h ? "lacks" : "has") `fold_index`, unlike the samples before it")
            }
            hasFold = sample.foldIndex != nil
            if let h = hasQA, h != (sample.qa != nil) {
                throw MotionError(.dataError, "member `\(jsonMember.name)` \(h ? "lacks" : "has") `qa`, unlike the samples before it")
            }
            hasQA = sample.qa != nil
            if let q = sample.qa { qa += q }
            start.append(sample.startTimeS)
            if let f = sample.foldIndex { fold.append(Int32(clamping: f)) }
            samples.append(sample)
            m += names.count
        }
        var arrays: [ShardArray] = []
        if let xs = xShape {
            let n = samples.count
            arrays.append(ShardArray(name: "x", dtype: "<f4", shape: [n] + xs, data: x))
            arrays.append(ShardArray(name: "y", dtype: "<i8", shape: [n], data: y.withUnsafeBytes { Array($0) }))
            if let ss = sShape { arrays.append(ShardArray(name: "y_seq", dtype: "<i8", shape: [n] + ss, data: ySeq)) }
            if let fs = fShape { arrays.append(ShardArray(name: "features", dtype: "<f4", shape: [n] + fs, data: features)) }
            arrays.append(ShardArray(name: "start_time_s", dtype: "<f8", shape: [n], data: start.withUnsafeBytes { Array($0) }))
            if hasQA == true {
                arrays.append(ShardArray(name: "qa", dtype: "<f4", shape: [n, WindowBatch.qaColumns.count], data: qa.withUnsafeBytes { Array($0) }))
            }
            if hasFold == true { arrays.append(ShardArray(name: "fold_index", dtype: "<i4", shape: [n], data: fold.withUnsafeBytes { Array($0) })) }
            if hasNormalized == true {
                arrays.append(ShardArray(name: "x_normalized", dtype: "<f4", shape: [n] + xs, data: xNormalized))
                if let fs = fShape { arrays.append(ShardArray(name: "features_normalized", dtype: "<f4", shape: [n] + fs, data: featuresNormalized)) }
            }
        }
        return ShardContents(memberNames: members.map(\.name), samples: samples, arrays: arrays)
    }

    /// The fields of `{key}.json`, read with MotionCore's `JSONFile` (doubles read exactly),
    /// exactly the documented keys.
    private static func parseJSON(_ bytes: ArraySlice<UInt8>, member: String, key: String, number: Int, classID: Int64) throws -> ShardSample {
        let f = try JSONFile.decode(_SampleFields.self, from: Array(bytes), file: "member `\(member)`", document: "the sample")
        var sample = ShardSample(key: key, windowNumber: number, classID: classID, subject: f.subject, recording: f.recording,
                                 startTimeS: f.startTimeS, label: f.label, foldIndex: f.foldIndex)
        sample.qa = f.qa
        return sample
    }
}

/// A sample's `{key}.json` (docs/dataset-format.md, "Shards").
private struct _SampleFields: JSONDecodable {
    var subject: String
    var recording: String
    var startTimeS: Double
    var label: String?
    var foldIndex: Int?
    var qa: [Float]?

    init(json o: JSONNode) throws(JSONProblem) {
        try o.onlyKeys(["fold_index", "label", "qa", "recording", "start_time_s", "subject"],
                       required: ["label", "recording", "start_time_s", "subject"])
        subject = try o["subject"].string()
        recording = try o["recording"].string()
        startTimeS = try o["start_time_s"].double()
        label = try o["label"].optional { n throws(JSONProblem) in try n.string() }
        foldIndex = try o["fold_index"].optional { n throws(JSONProblem) in try n.int() }
        // `qa` (the pipeline's `qa`): an object of exactly the `qa` columns, each a number.
        qa = try o["qa"].optional { n throws(JSONProblem) in
            try n.onlyKeys(WindowBatch.qaColumns, required: WindowBatch.qaColumns)
            var values: [Float] = []
            for c in WindowBatch.qaColumns { values.append(Float(try n[c].double())) }
            return values
        }
    }
}
