// The client's TLS session-resumption cache: host:port → the newest resumable session, least
// recently used entries evicted first.
//
// Invariants: at most `capacity` entries; every entry holds a resumable session; a TLS 1.3 session
// is handed out once and removed (tickets are single use, RFC 8446 §C.4: reusing one lets a
// network observer link connections); a TLS 1.2 session stays until replaced or evicted. The
// capacity is small (tens), so eviction scans; no linked list is needed.

struct SessionCache {
    private struct Entry {
        var session: SessionOwner
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { entries.count }

    /// Stores the newest session for `key`, replacing an older one.
    mutating func store(_ session: SessionOwner, for key: String) {
        guard capacity > 0 else { return }
        clock &+= 1
        if entries[key] == nil && entries.count >= capacity {
            if let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                entries[oldest] = nil
            }
        }
        entries[key] = Entry(session: session, lastUse: clock)
    }

    /// The session to offer for `key`, if any.
    mutating func take(for key: String) -> SessionOwner? {
        guard var entry = entries[key] else { return nil }
        if entry.session.isTLS13 {
            entries[key] = nil
        } else {
            clock &+= 1
            entry.lastUse = clock
            entries[key] = entry
        }
        return entry.session
    }

    /// Forgets the session for `key` (after the peer failed a security policy).
    mutating func remove(for key: String) {
        entries[key] = nil
    }
}
