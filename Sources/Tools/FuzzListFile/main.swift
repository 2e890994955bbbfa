// libFuzzer entry point for the list-file reader and writer (see FuzzChecks.listFile). Built and
// run by `make fuzz`; as a plain executable it does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzListFile(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    if let broken = FuzzChecks.listFile(UnsafeRawBufferPointer(start: start, count: count)) {
        fatalError(broken)  // libFuzzer keeps the input
    }
    return 0
}
