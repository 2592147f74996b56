import MotionConfig
import MotionCore
import MotionOutput
import MotionJob

/// `motionprep live-vectors DATASET_DIR INPUT -o VECTORS.json [--input N]` (docs/live.md, "Test vectors").
enum LiveVectorsCommand {
    static let help = """
        usage: motionprep live-vectors DATASET_DIR INPUT -o VECTORS.json [--input N]

        Writes test vectors for an app that runs the dataset's processing live (MotionLive): the
        first recording INPUT holds (a file or a folder, as `apply` takes them), as the samples an
        app would push (every stream, in time order, units converted as the dataset reads them),
        and the windows the dataset's engine makes of them. An app's unit test replays them on the
        device with `LiveVectors.check` and gets the windows bit for bit. Doubles and floats are
        written as the hexadecimal of their bits. Keep INPUT short (a minute of recording is
        about 1 MB of vectors). VECTORS.json must not exist: motionprep never replaces a file it
        cannot tell it wrote.

        options:
          -o, --output FILE   the vectors file to write (required)
          --input N           read INPUT with inputs[N] of the dataset's pipeline (as `apply`)
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let spec = CommandCatalogue["live-vectors"]
        let a = try ArgumentScanner(args, valueOptions: spec.valueOptions, flagOptions: spec.flagOptions, command: "live-vectors")
        guard a.positionals.count == 2 else {
            throw UsageError(message: "`motionprep live-vectors` needs a dataset folder and one recording (a file or folder): `motionprep live-vectors DATASET_DIR INPUT -o VECTORS.json`")
        }
        guard let out = a.value("-o") ?? a.value("--output") else {
            throw UsageError(message: "`motionprep live-vectors` needs `-o VECTORS.json`, the file to write")
        }
        let inputIndex = try a.int("--input", in: 0...1_000_000, command: "live-vectors")
        let inputs = [(path: a.positionals[0], role: "dataset"), (path: a.positionals[1], role: "recording")]
        // docs/hardening.md, "One output policy": a refused output costs nothing.
        try OutputPolicy.checkNewFile(out, what: "the test vectors", inputs: inputs)
        let dataset = try SourceDataset.load(directory: a.positionals[0])
        let vectors = try LiveVectorsWriter.vectors(dataset: dataset, inputs: [a.positionals[1]], inputIndex: inputIndex)
        let text = vectors.compact() + "\n"
        try OutputPolicy.writeNewFile(Array(text.utf8), to: out, what: "the test vectors", inputs: inputs)
        if case .object(let o) = vectors, case .array(let samples)? = o["samples"], case .array(let windows)? = o["windows"],
           case .string(let name)? = o["recording"] {
            try Diagnostics.stdoutText("wrote \(Text.terminalSafe(out)): recording \(Text.terminalSafe(name)), \(samples.count) samples, \(windows.count) windows")
        }
        return .success
    }
}
