import MotionCore

/// Thrown when a run is cancelled (SIGINT): the partial folder is kept for `--resume`.
public struct RunInterrupted: UserFacingError {
    public var message: String
    public var exitStatus: ExitStatus { .interrupted }

    public init(message: String) {
        self.message = message
    }
}
