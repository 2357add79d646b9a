// libFuzzer entry for FuzzChecks.authenticationChallenges(_:). Without FUZZING (a plain build) the same executable
// replays the files named on its command line, for reproducing a finding under a debugger.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzChecks.authenticationChallenges(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzChecks.replay(CommandLine.arguments.dropFirst(), through: FuzzChecks.authenticationChallenges) }
}
#endif
