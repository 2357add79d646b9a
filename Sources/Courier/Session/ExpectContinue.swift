// ExpectContinuePolicy: when a session's requests ask `Expect: 100-continue` before sending their
// body (RFC 9110 §10.1.1; docs/session.md "Expect: 100-continue").
//
// The rule is curl's for POST bodies, applied to every method: an HTTP/1.1 body larger than
// 1 MiB (exactly 1 MiB asks nothing) or of unknown length asks first, so a server that refuses
// it (401, 413) answers before megabytes are sent for nothing. Unlike curl, small uploads (curl's
// `-T`) do not ask: the round trip costs more than the body. The body waits at most `timeout`
// for the 100, then goes anyway. A 417 is answered by sending the request once more without the
// expectation (every session body is replayable).

import CourierHTTP1

/// When requests carry `Expect: 100-continue`, and how long their bodies wait for the 100.
public struct ExpectContinuePolicy: Sendable, Hashable {
    /// Bodies larger than this many bytes ask first, and so do bodies of unknown length; nil:
    /// no request asks (unless its own fields carry the expectation). Default 1 MiB.
    public var threshold: UInt64?
    /// How long the body waits for 100 Continue before it is sent anyway. Default 1 s (curl's
    /// `--expect100-timeout` default).
    public var timeout: Duration

    /// A policy.
    /// - Parameters:
    ///   - threshold: bodies larger than this ask first (nil: none do). Default 1 MiB.
    ///   - timeout: the longest wait for the 100. Default 1 s.
    public init(threshold: UInt64? = 1 << 20, timeout: Duration = .seconds(1)) {
        self.threshold = threshold
        self.timeout = timeout
    }

    /// Bodies over 1 MiB and of unknown length ask; the wait is 1 s.
    public static let `default` = ExpectContinuePolicy()
    /// No request asks (a request whose own fields carry `Expect: 100-continue` still waits).
    public static let never = ExpectContinuePolicy(threshold: nil)

    /// Whether a body of `length` asks first.
    func applies(to length: BodyLength) -> Bool {
        guard let threshold else { return false }
        switch length {
        case .none: return false
        case .unknown: return true
        case .known(let n): return n > threshold
        }
    }
}

extension RequestPreparation {
    /// The request with `Expect: 100-continue` added (last, where curl puts it) when the policy
    /// asks for it, and how long its body waits for the 100 (nil: the request does not ask).
    /// A request that carries an Expect field of its own keeps it as it is. HTTP/1.0 requests
    /// never ask (RFC 9110 §10.1.1: a 1.0 server does not know the expectation).
    /// - Parameter refused: the server answered 417 to this request once: do not ask again.
    static func addingExpectation(to request: HTTPRequest, length: BodyLength, configuration: SessionConfiguration,
                                  refused: Bool) -> (request: HTTPRequest, timeout: Duration?) {
        let policy = request.expectContinue ?? configuration.expectContinue
        if HTTP1Connection.expectsContinue(request.headers) { return (request, policy.timeout) }
        guard !refused, request.version == .http1_1, !request.headers.contains(name: "Expect"),
              policy.applies(to: length) else { return (request, nil) }
        var asking = request
        asking.headers.add(name: "Expect", value: "100-continue")
        return (asking, policy.timeout)
    }
}
