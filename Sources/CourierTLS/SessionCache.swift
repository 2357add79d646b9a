// The client's TLS session-resumption cache: for each origin (host, port and the security policy
// the connection is judged by), the resumable sessions its server issued, newest first.
//
// Invariants (each checked by SessionResumptionTests):
//   1. At most `capacity` origins; the least recently used origin goes first. At most
//      `sessionsPerOrigin` sessions per origin, the oldest dropped first.
//   2. A session is never offered after it expires: at `stored + min(timeout, ticket lifetime)`
//      (RFC 8446 §4.6.1: never use a ticket older than its lifetime; RFC 5246 §F.1.4: sessions
//      have a bounded lifetime) and never later than `maximumAuthenticationAge` after the full
//      handshake the session descends from (RFC 8446 §4.6.1 recommends limiting how long keys
//      first tied to a certificate live on through ticket after ticket; 7 days, BoringSSL's
//      default session auth timeout).
//   3. A TLS 1.3 session is handed out once and removed (tickets are single use, RFC 8446 §C.4:
//      reusing one lets an observer link connections); keeping a few per origin lets parallel
//      connections each resume. A TLS 1.2 session (ID or ticket) stays until replaced, expired or
//      evicted.
//   4. The key holds everything that decides whether a resumed session may be trusted, beyond what
//      the context itself fixes (trust roots, verification mode, client identity — one context, one
//      cache): the SNI name or address, the port, and the security policy with its pins. A session
//      is never offered to a connection that would have judged the original handshake differently.
//
// The cache is a plain value, with time passed in, so tests drive expiry without waiting; its
// owner (TLSClientContext) keeps it behind a mutex. Capacities are small (tens), so eviction scans.

/// The origin a session belongs to.
struct SessionKey: Hashable, Sendable {
    /// The normalized host: the SNI name, or the IP literal (no SNI is sent for those).
    var host: String
    var port: Int
    /// The policy the connection is evaluated by after the handshake (pins included).
    var policy: SecurityPolicy?
}

/// A session with its bounds, as kept by the cache.
struct CachedSession {
    let session: SessionOwner
    /// When it may no longer be offered.
    let expires: ContinuousClock.Instant
    /// When the full handshake it descends from happened (a resumed connection's tickets inherit
    /// the origin of the session it resumed).
    let authenticated: ContinuousClock.Instant
}

struct SessionCache {
    /// How long keys first established by a full (certificate) handshake may live on through
    /// resumption, whatever the tickets say.
    static let maximumAuthenticationAge: Duration = .seconds(7 * 24 * 3600)
    /// TLS 1.3 tickets kept per origin: OpenSSL servers send two per handshake by default.
    static let sessionsPerOrigin = 4

    private struct Entry {
        var sessions: [CachedSession]  // oldest first
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [SessionKey: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The number of origins with at least one session.
    var count: Int { entries.count }

    /// The number of sessions kept for `key` (expired ones included until the next take).
    func sessionCount(for key: SessionKey) -> Int { entries[key]?.sessions.count ?? 0 }

    /// Stores a session for `key`. A TLS 1.2 session replaces what was there (a new one
    /// supersedes the old, RFC 5077 §3.3); a TLS 1.3 ticket is added beside the others.
    mutating func store(_ cached: CachedSession, for key: SessionKey) {
        guard capacity > 0 else { return }
        clock &+= 1
        if var entry = entries[key] {
            if cached.session.isTLS13 {
                entry.sessions.removeAll { !$0.session.isTLS13 }
                if entry.sessions.count >= Self.sessionsPerOrigin { entry.sessions.removeFirst() }
                entry.sessions.append(cached)
            } else {
                entry.sessions = [cached]
            }
            entry.lastUse = clock
            entries[key] = entry
            return
        }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
        entries[key] = Entry(sessions: [cached], lastUse: clock)
    }

    /// The session to offer for `key` at `now`, if any: the newest one that has not expired.
    mutating func take(for key: SessionKey, now: ContinuousClock.Instant) -> CachedSession? {
        guard var entry = entries[key] else { return nil }
        entry.sessions.removeAll { $0.expires <= now }
        guard let newest = entry.sessions.last else {
            entries[key] = nil
            return nil
        }
        if newest.session.isTLS13 { entry.sessions.removeLast() }
        clock &+= 1
        entry.lastUse = clock
        entries[key] = entry.sessions.isEmpty ? nil : entry
        return newest
    }

    /// Forgets every session for `key` (after a fatal alert or a failed security policy: RFC 5246
    /// §7.2.2, sessions of a failed connection must not be resumed).
    mutating func remove(for key: SessionKey) {
        entries[key] = nil
    }

    /// Forgets everything.
    mutating func removeAll() {
        entries.removeAll()
    }
}
