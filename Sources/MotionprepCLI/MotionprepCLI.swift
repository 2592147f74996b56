#if canImport(Glibc)
import Glibc
#endif

public enum MotionprepCommand {
    public static func main(_ arguments: [String]) -> Never {
        exit(64)
    }
}
