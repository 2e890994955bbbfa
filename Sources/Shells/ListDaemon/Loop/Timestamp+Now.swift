// The wall clock, read by the shells only: the core gets times with its events.
import Glibc
import ListCore
import ListModel

extension Timestamp {
    /// The wall clock now: `edited` stamps are wall-clock times people read.
    static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millisecondsSinceEpoch: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
