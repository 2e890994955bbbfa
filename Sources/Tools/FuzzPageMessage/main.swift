// libFuzzer entry point for what a page may send listd-web (see FuzzChecks.pageMessage). Built
// and run by `make fuzz` (swift build --sanitize=fuzzer); as a plain executable it does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPageMessage(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    if let broken = FuzzChecks.pageMessage(UnsafeRawBufferPointer(start: start, count: count)) {
        fatalError(broken)  // libFuzzer keeps the input
    }
    return 0
}
