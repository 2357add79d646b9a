// Issue 15 §4: error codes are one shape — a RawRepresentable String code whose set is closed
// (scripts/check_error_codes.py holds the sources to it; this checks the behaviour).

import Courier
import Testing

@Suite struct ErrorShapeTests {
    @Test("a code's name gives the code back; any other name gives nothing (the set is closed)")
    func closedCodes() {
        #expect(SessionError.Code(rawValue: "cancelled") == .cancelled)
        #expect(SessionError.Code(rawValue: SessionError.Code.invalidProxy.rawValue) == .invalidProxy)
        #expect(SessionError.Code(rawValue: "madeUp") == nil)
        #expect(ConnectionError.Code(rawValue: ConnectionError.Code.connectTimeout.rawValue) == .connectTimeout)
        #expect(ConnectionError.Code(rawValue: "Cancelled") == nil)
        #expect(TLSError.Code(rawValue: "pinningFailed") == .pinningFailed)
        #expect(TLSError.Code(rawValue: "") == nil)
        #expect(MultipartError.Code(rawValue: "invalidName") == .invalidName)
        #expect(ContentDecodingError.Code(rawValue: "unsupportedCoding") == .unsupportedCoding)
        #expect(ContentDecodingError.Code(rawValue: "gzip") == nil)
    }
}
