// libFuzzer entry point for the list-file reader and writer (see FuzzChecks.listFile). Built and
// run by `make fuzz`; as a plain executable it does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzListFile(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzChecks.listFile(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
