import MotionConfig
import MotionCore
import MotionIngest
import MotionResample
import MotionInputs

extension StreamingRecording {
    /// Runs `body` on a recording `make` makes, settling the two cases one streamed read cannot
    /// settle alone:
    /// - label events far out of time order (`LabelEventOutOfOrder`): `log` hears a notice, the
    ///   label track is read first, in a pass of its own, and the recording is streamed again
    ///   with it (`make` is given the track);
    /// - an error of a recording of several files, which were read interleaved by time: the
    ///   files are read once more in file order (`checkInFileOrder`) for the first error there,
    ///   else the error met is thrown.
    /// Interruptions, failed reads and errors that are not the data's (the memory budget
    /// cancelled) are thrown as they come.
    package static func attempt<R>(_ source: RecordingSource, log: (String) -> Void = { _ in }, isCancelled: () -> Bool,
                           make: (_ labelTrack: LabelTrack?) throws -> StreamingRecording,
                           _ body: (StreamingRecording) throws -> R) throws -> R {
        var track: LabelTrack?
        do {
            while true {
                do {
                    return try body(try make(track))
                } catch let e as LabelEventOutOfOrder where track == nil {
                    log("notice: recording `\(source.name)`: \(e.description) (label rows far out of time order), so its label rows are read first, in a pass of their own, and the recording is streamed again")
                    track = try make(nil).readLabelTrack(isCancelled: isCancelled)
                }
            }
        } catch let e as any UserFacingError where source.files.count > 1 && e.exitStatus.isAboutInputData {
            // An error in the data (not a failed read, a file changed as it was read, or an
            // interruption): the first in file order.
            try make(track).checkInFileOrder(isCancelled: isCancelled)
            throw e
        }
    }
}
