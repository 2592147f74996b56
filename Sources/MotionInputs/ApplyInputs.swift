#if canImport(Glibc)
import Glibc
#endif
import MotionConfig
import MotionCore

/// Which of a dataset's `inputs` entries reads each file given to `motionprep apply`
/// (docs/commands.md, "apply").
///
/// - A file goes to the one input whose path patterns' last component (`*.csv` of
///   `data/**/*.csv`, `Accelerometer.csv` of `data/**/Accelerometer.csv`) matches its name. With
///   one input, every file goes to it, whatever its name.
/// - A folder stands for every regular file below it (links to folders are not followed, as
///   with `**`) whose name matches the last component of an input's patterns; files matching
///   none are left out.
/// - `--input N` sends every file, and the matching files of every folder, to `inputs[N]`.
public enum ApplyInputs {
    /// The files of each input entry, in input order.
    ///
    /// - Throws: `MotionError(.usage)` (64) for a file that matches no input or several (naming
    ///   them and `--input N`), an `--input` out of range, a folder whose name holds a glob
    ///   character or a folder in which no file matches; `.noInput` (66) for a path that does not exist.
    public static func assign(_ paths: [String], spec: PipelineSpec, inputIndex: Int?) throws -> [[String]] {
        let count = spec.inputs.count
        if let n = inputIndex, !(0..<count).contains(n) {
            throw MotionError(.usage, "option `--input` of `motionprep apply` must name an entry of the dataset's `inputs`, 0 to \(count - 1), not \(n)")
        }
        let names = spec.inputs.map { input in
            Array(Set(input.paths.map { PathText.lastComponent($0) })).sorted(by: Text.utf8Less)
        }
        func matching(_ file: String) -> [Int] {
            if let n = inputIndex { return [n] }
            if count == 1 { return [0] }
            let name = PathText.lastComponent(file)
            return (0..<count).filter { i in names[i].contains { fnmatch($0, name, 0) == 0 } }
        }
        func describe(_ inputs: [Int]) -> String {
            inputs.map { "inputs[\($0)] (`\(names[$0].joined(separator: "`, `"))`)" }.joined(separator: ", ")
        }
        var out = [[String]](repeating: [], count: count)
        for path in paths {
            var st = stat()
            guard stat(path, &st) == 0 else {
                throw MotionError(.noInput, "cannot read input \(path): no such file or folder")
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                if path.contains(where: { "*?[".contains($0) }) {
                    throw MotionError(.usage, "input folder \(path) has a glob character (`*`, `?` or `[`) in its name; give its files one by one instead")
                }
                let wanted = inputIndex.map { [$0] } ?? Array(0..<count)
                var found = 0
                for i in wanted {
                    for name in names[i] {
                        for file in Glob.files(matching: PathText.join(Glob.escape(path), "**/" + name)) where !out[i].contains(where: { Text.sameBytes($0, file) }) {
                            // A file of a folder that several inputs could read is refused as a named file would be.
                            let candidates = matching(file)
                            guard candidates.count == 1 else {
                                throw MotionError(.usage, "input \(file) (in folder \(path)) matches \(describe(candidates)) of the dataset; choose one with `--input N`, or give the files of each input in separate runs")
                            }
                            out[i].append(file)
                            found += 1
                        }
                    }
                }
                if found == 0 {
                    throw MotionError(.noInput, "input folder \(path) holds no file the dataset's inputs read: \(describe(wanted))")
                }
                continue
            }
            let candidates = matching(path)
            guard candidates.count == 1 else {
                if candidates.isEmpty {
                    throw MotionError(.usage, "input \(path) matches none of the dataset's inputs, \(describe(Array(0..<count))); name the input that reads it with `--input N`")
                }
                throw MotionError(.usage, "input \(path) matches \(describe(candidates)) of the dataset; choose one with `--input N`")
            }
            if !out[candidates[0]].contains(path) { out[candidates[0]].append(path) }
        }
        return out
    }
}
