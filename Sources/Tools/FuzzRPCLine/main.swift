// libFuzzer entry point for the request-line decoder (see FuzzChecks.rpcLine). Built and run by
// `make fuzz` (swift build --sanitize=fuzzer); as a plain executable it does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRPCLine(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    if let broken = FuzzChecks.rpcLine(UnsafeRawBufferPointer(start: start, count: count)) {
        fatalError(broken)  // libFuzzer keeps the input
    }
    return 0
}
