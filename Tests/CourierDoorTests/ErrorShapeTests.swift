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

/// Every constant's name gives it back through `init?(rawValue:)`, and a near miss gives nil.
private func roundTrips<C: RawRepresentable & Equatable>(_ codes: [C]) -> Bool where C.RawValue == String {
    codes.allSatisfy { C(rawValue: $0.rawValue) == $0 && C(rawValue: $0.rawValue + "X") == nil }
        && C(rawValue: "") == nil
}

/// `C.all` holds at least `count` codes with distinct names, each given back by its name, none by
/// another name, and (unless the type describes a code by more than its name) described by its name.
private func wholeSet<C: ClosedErrorCode>(_ type: C.Type, atLeast count: Int, describedByName: Bool = true) -> Bool {
    C.all.count >= count && Set(C.all.map(\.rawValue)).count == C.all.count
        && C.all.allSatisfy { C(rawValue: $0.rawValue) == $0 && (!describedByName || $0.description == $0.rawValue) }
        && C(rawValue: "notACode") == nil
}

extension ErrorShapeTests {
    @Test("every public error code in the one shape: names round-trip, the set is closed")
    func everyCodeRoundTrips() {
        #expect(roundTrips([HTTPParserError.Code.invalidStatusLine, .headTooLarge, .unexpectedData]))
        #expect(roundTrips([HTTPEncodingError.Code.invalidMethod, .invalidFieldValue]))
        #expect(roundTrips([AuthenticationChallengeError.Code.expectedScheme, .expectedComma]))
        #expect(roundTrips([URIError.Code.invalidCharacter, .invalidPort]))
        #expect(roundTrips([JSONError.Code.emptyInput, .documentTooLarge]))
        #expect(roundTrips([ResolutionError.Code.noName, .tryAgain, .shutDown, .cancelled]))
        #expect(roundTrips([ConnectError.Code.connectionRefused, .localBindFailed]))
        #expect(roundTrips([HTTPClientError.Code.invalidBaseURL, .pinningWithoutTLS]))
        #expect(roundTrips([ResponseSerializationError.Code.unacceptableStatusCode, .invalidImage]))
        #expect(roundTrips([RequestSerializationError.Code.invalidHeaderField]))
        #expect(roundTrips([ResourceDownloaderError.Code.cancelled, .fetchFailed]))
        #expect(roundTrips([XMLError.Code.mismatchedTag]))
        #expect(roundTrips([PropertyListError.Code.cycle]))
        #expect(roundTrips([ImageSniffError.Code.truncated]))
    }

    @Test("every code type lists its whole set in `all`: distinct names, each one's name gives it back")
    func wholeSets() {
        #expect(wholeSet(SessionError.Code.self, atLeast: 25))
        #expect(wholeSet(ConnectionError.Code.self, atLeast: 17))
        #expect(wholeSet(TLSError.Code.self, atLeast: 19))
        #expect(wholeSet(MultipartError.Code.self, atLeast: 16))
        #expect(wholeSet(ContentDecodingError.Code.self, atLeast: 6))
        #expect(wholeSet(HTTPParserError.Code.self, atLeast: 30))
        #expect(wholeSet(HTTPEncodingError.Code.self, atLeast: 12))
        #expect(wholeSet(AuthenticationChallengeError.Code.self, atLeast: 4))
        #expect(wholeSet(URIError.Code.self, atLeast: 13))
        #expect(wholeSet(JSONError.Code.self, atLeast: 13))
        #expect(wholeSet(ResolutionError.Code.self, atLeast: 15, describedByName: false))
        #expect(wholeSet(ConnectError.Code.self, atLeast: 6))
        #expect(wholeSet(HTTPClientError.Code.self, atLeast: 2))
        #expect(wholeSet(ResponseSerializationError.Code.self, atLeast: 10, describedByName: false))
        #expect(wholeSet(RequestSerializationError.Code.self, atLeast: 9))
        #expect(wholeSet(ResourceDownloaderError.Code.self, atLeast: 3, describedByName: false))
        #expect(wholeSet(XMLError.Code.self, atLeast: 18))
        #expect(wholeSet(PropertyListError.Code.self, atLeast: 7))
        #expect(wholeSet(ImageSniffError.Code.self, atLeast: 3))
        // The description of a code is its name, but where the type says more (the C name of a
        // resolver error, AFNetworking's number).
        #expect(ResolutionError.Code.noName.description == "EAI_NONAME")
        #expect(ResponseSerializationError.Code.invalidJSON.description.hasPrefix("invalidJSON"))
        #expect(ResourceDownloaderError.Code.cancelled.description == "cancelled (-999)")
    }

    @Test("codes with AFNetworking's number keep it beside the name")
    func afNetworkingNumbers() {
        #expect(ResponseSerializationError.Code.unacceptableStatusCode.afNetworkingCode == -1011)
        #expect(ResponseSerializationError.Code.unacceptableContentType.afNetworkingCode == -1016)
        #expect(ResourceDownloaderError.Code.cancelled.afNetworkingCode == -999)
        #expect(ResolutionError.Code.noName.name == "EAI_NONAME")
    }
}

extension ErrorShapeTests {
    @Test("every error that carries an errno calls it `errno` and types it `Errno`")
    func oneErrnoField() {
        // These compile only while the name and the type are the same everywhere.
        let _: KeyPath<SessionError, Errno?> = \.errno
        let _: KeyPath<ConnectionError, Errno?> = \.errno
        let _: KeyPath<ResolutionError, Errno?> = \.errno
        let _: KeyPath<PinnedCertificatesError, Errno?> = \.errno
        let _: KeyPath<CookieFileError, Errno> = \.errno
        var error = SessionError(.fileWriteFailed, "writing failed")
        error.errno = .fileExists
        #expect(error.errno == .fileExists)
    }
}

extension ErrorShapeTests {
    /// The errors keep their rarely set parts out of line (OutOfLine), behind one reference: still
    /// values, so a copy changed afterwards leaves the original as it was, and back.
    @Test("errors are values: changing a copy's out-of-line parts leaves the original alone")
    func outOfLinePartsAreCopiedOnWrite() {
        var original = ConnectionError(.bodyTooLarge, "too large")
        #expect(original.limit == nil && original.proxy == nil)
        original.limit = 10
        var copy = original
        copy.limit = 20
        copy.proxy = "http://proxy.example:3128"
        #expect(original.limit == 10 && original.proxy == nil)
        #expect(copy.limit == 20 && copy.proxy == "http://proxy.example:3128")
        original.limit = nil
        #expect(original.limit == nil && copy.limit == 20)

        var session = SessionError(.connection, "failed")
        session.connectionError = copy
        let before = session
        session.connectionError?.limit = 30
        #expect(before.connectionError?.limit == 20)
        #expect(session.connectionError?.limit == 30)
        #expect(session.connectionError?.proxy == "http://proxy.example:3128")
    }
}
