// CurlExitCodes: curl's exit code for each of Courier's typed errors — the table of design §9 and
// docs/cli.md, which is the contract. The library does not speak the tool's vocabulary (issue 15
// §4): this mapping lives in its own internal target, imported by the `courier` executable and by
// the tests that assert exit codes (they cannot import the executable, which replaces malloc).
// It is no product and no part of Courier's public API; its members are `package`.

import Courier
import CourierCompression
import CourierHTTP1
import CourierTLS

extension SessionError {
    /// curl's exit code for this error (design §9; docs/cli.md lists the table).
    package var curlExitCode: Int {
        switch code {
        case .cancelled: return 42
        case .invalidRequest: return 43
        case .invalidURL: return 3
        case .unsupportedScheme, .insecureRedirect: return 1
        case .tooManyRedirects, .redirectLoop: return 47
        case .redirectRefused: return 47
        case .badContentEncoding: return 61
        case .decodedSizeExceeded:
            // The decoded size limit is curl's 63 (--max-filesize); a ratio bomb is bad content (61).
            return decodingError?.code == .ratioExceeded ? 61 : 63
        case .fileTooLarge: return 63
        case .bodyTooLarge: return 63
        case .resumeMismatch, .rangeNotSatisfiable: return 33
        case .fileWriteFailed, .invalidDestination: return 23
        case .fileReadFailed: return 26
        case .responseHeadsTooLarge: return 100
        case .conflictingLocations: return 8
        case .invalidProxy: return 5
        case .unsupportedProxyScheme: return 7
        case .connection:
            guard let connectionError else { return 56 }
            if connectionError.code == .invalidRequest { return 43 }
            if let parserError = connectionError.parserError {
                // Every exceeded parser limit is curl's 100, never a generic protocol error.
                if parserError.code.isLimit { return 100 }
                // A reply cut short inside its head (the status line or right after it) is a
                // weird reply, not a receive failure; nothing at all stays 52.
                if parserError.code == .incompleteHead { return 8 }
            }
            return connectionError.curlExitCode
        case .serialization:
            guard let serializationError else { return 22 }
            // AFNetworking wraps the content-type failure inside the status failure: status wins.
            if serializationError.hasCode(.unacceptableStatusCode) { return 22 }
            if serializationError.hasCode(.unacceptableContentType) { return 121 }
            return 120
        case .invalidated: return 42
        default: return 1
        }
    }
}

extension ConnectionError {
    /// The curl exit code closest to this error (design §9; docs/cli.md lists the table).
    package var curlExitCode: Int {
        switch code {
        case .connectTimeout, .tlsHandshakeTimeout, .idleTimeout, .totalTimeout, .transferTooSlow: return 28
        case .connectFailed: return resolutionError != nil ? (proxy != nil ? 5 : 6) : 7
        case .localBindFailed: return 45
        case .proxyTunnelFailed: return 56
        case .tlsFailed:
            guard let tlsError else { return 35 }
            if tlsError.code == .pinningFailed { return 90 }
            if tlsError.isCertificateVerificationFailure { return 60 }
            if tlsError.code == .closedWithoutCloseNotify || tlsError.code == .protocolError { return 56 }
            return 35
        case .protocolError: return 8
        case .remoteClosed: return parserError?.code == .emptyResponse ? 52 : (whileSending ? 55 : 56)
        case .earlyResponse: return 55
        case .bodyTruncated: return 18
        case .bodyTooLarge: return 63
        case .cancelled: return 42
        case .invalidRequest: return 2
        default: return 1
        }
    }
}
