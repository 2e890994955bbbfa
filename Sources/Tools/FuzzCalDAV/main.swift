// libFuzzer entry point for what a CalDAV client may send listd-web: XML bodies and iCalendar
// objects (see FuzzChecks.calDAV). Built and run by `make fuzz` (swift build --sanitize=fuzzer);
// as a plain executable it does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalDAV(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    if let broken = FuzzChecks.calDAV(UnsafeRawBufferPointer(start: start, count: count)) {
        fatalError(broken)  // libFuzzer keeps the input
    }
    return 0
}
