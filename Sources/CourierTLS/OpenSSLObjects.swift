// The Swift owners of OpenSSL objects, and the error queue.
//
// Ownership rule (style.md "Wrapping C"): every OpenSSL object CourierTLS creates or takes a
// reference to has exactly one Swift owner, a final class whose deinit releases that one reference.
// The owners here cover X509, EVP_PKEY, X509_STORE, SSL_SESSION, STACK_OF(X509) and SSL_CTX; the SSL
// object (and the ciphertext BIO it owns after SSL_set0_rbio/wbio) is owned by TLSConnection, the
// process-wide BIO_METHOD by BIOMethodOwner. Pointers are never stored anywhere else; a caller
// that needs one for a C call borrows `pointer` for the duration of that call, while the owner is
// alive.
//
// Every owner counts itself in `TLSDebugCounters.liveObjects`, so tests can check that everything
// created was freed.
//
// Error queue rule (design §7): OpenSSL keeps a per-thread error queue. Before each call that can
// fail, the queue is cleared so old errors are not blamed on it; after a failure it is drained into
// the TLSError. A successful call that left entries behind (PEM readers at end of input) clears them.

import Synchronization
internal import CCourierOpenSSL

/// Counters for tests and fuzzing: how many OpenSSL objects CourierTLS currently owns.
@_spi(Fuzzing)
public enum TLSDebugCounters {
    /// The number of live OpenSSL objects (contexts, connections, certificates, keys, stores,
    /// sessions, stacks) owned by CourierTLS in this process.
    public static var liveObjects: Int { liveObjectCounter.load(ordering: .relaxed) }
}

private let liveObjectCounter = Atomic<Int>(0)

@inline(__always) func countObjectCreated() { liveObjectCounter.add(1, ordering: .relaxed) }
@inline(__always) func countObjectFreed() { liveObjectCounter.subtract(1, ordering: .relaxed) }

// MARK: - Error queue

/// One entry of OpenSSL's error queue.
struct OpenSSLErrorEntry {
    let library: Int32
    let reason: Int32
    let text: String
}

enum OpenSSLErrorQueue {
    /// Forgets whatever earlier calls on this thread left behind.
    @inline(__always) static func clear() { ERR_clear_error() }

    /// Removes and returns every entry, oldest first.
    static func drain() -> [OpenSSLErrorEntry] {
        var entries: [OpenSSLErrorEntry] = []
        while true {
            let packed = ERR_get_error()
            if packed == 0 { break }
            entries.append(OpenSSLErrorEntry(
                library: courier_ERR_GET_LIB(packed), reason: courier_ERR_GET_REASON(packed),
                text: describe(packed)))
        }
        return entries
    }

    /// OpenSSL's one-line text for a packed error code.
    static func describe(_ packed: UInt) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            ERR_error_string_n(packed, buffer.baseAddress!, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// A TLSError with the drained queue attached.
    static func error(_ code: TLSError.Code, _ message: String) -> TLSError {
        TLSError(code: code, message: message, openSSLErrors: drain().map(\.text))
    }
}

// MARK: - Owners

/// Owns one reference to an `X509`.
final class X509Owner: @unchecked Sendable {
    // SAFETY (Sendable): an X509 is not modified after parsing; OpenSSL's reference count and its
    // lazily computed extension cache are thread-safe (OpenSSL 3 locks them).
    let pointer: OpaquePointer

    /// Takes over one reference the caller already owns.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        countObjectCreated()
    }

    /// Takes a new reference to an object someone else owns.
    convenience init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.init(taking: pointer)
    }

    deinit {
        X509_free(pointer)
        countObjectFreed()
    }

    /// Parses one DER certificate.
    static func parse(der: [UInt8]) -> X509Owner? {
        OpenSSLErrorQueue.clear()
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            let x509 = d2i_X509(nil, &cursor, buffer.count)
            // Trailing bytes after the certificate make the input something else; refuse it.
            if let x509, cursor != base + buffer.count { X509_free(x509); return nil }
            return x509
        }
        OpenSSLErrorQueue.clear()
        return parsed.map { X509Owner(taking: $0) }
    }

    /// The DER encoding.
    var der: [UInt8] {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, count in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            count = Int(i2d_X509(pointer, &cursor))
        }
    }

    /// The DER SubjectPublicKeyInfo of the certificate's key.
    var subjectPublicKeyInfo: [UInt8] {
        guard let key = X509_get_X509_PUBKEY(pointer) else { return [] }
        let length = i2d_X509_PUBKEY(key, nil)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, count in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            count = Int(i2d_X509_PUBKEY(key, &cursor))
        }
    }
}

/// Owns one reference to an `EVP_PKEY`.
final class PrivateKeyOwner {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        countObjectCreated()
    }

    deinit {
        EVP_PKEY_free(pointer)
        countObjectFreed()
    }
}

/// Owns one reference to an `X509_STORE` (a set of trust anchors).
final class TrustStoreOwner: @unchecked Sendable {
    // SAFETY (Sendable): the store is filled in init and only read afterwards; OpenSSL locks an
    // X509_STORE's internals for concurrent lookups (it is shared between SSL_CTXs by design).
    let pointer: OpaquePointer

    init?() {
        guard let store = X509_STORE_new() else { return nil }
        pointer = store
        countObjectCreated()
    }

    deinit {
        X509_STORE_free(pointer)
        countObjectFreed()
    }

    /// Adds a trust anchor. Adding a certificate already present is not an error.
    func add(_ certificate: X509Owner) -> Bool {
        OpenSSLErrorQueue.clear()
        let added = X509_STORE_add_cert(pointer, certificate.pointer) == 1
        OpenSSLErrorQueue.clear()
        return added
    }
}

/// Owns one reference to an `SSL_SESSION` (a resumable client session).
final class SessionOwner: @unchecked Sendable {
    // SAFETY (Sendable): a session handed to the cache is not modified any more; SSL_set_session
    // takes its own reference; the cache that holds owners is behind a mutex.
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        self.isTLS13 = SSL_SESSION_get_protocol_version(pointer) == TLS1_3_VERSION
        countObjectCreated()
    }

    deinit {
        SSL_SESSION_free(pointer)
        countObjectFreed()
    }

    /// Whether the session was made with TLS 1.3, whose tickets are single use (RFC 8446 §C.4).
    let isTLS13: Bool

    /// How long the session may be offered from now: its timeout, shortened to the ticket's
    /// lifetime hint when the server sent one (RFC 8446 §4.6.1, RFC 5077 §3.3).
    var lifetime: Duration {
        var seconds = Int64(SSL_SESSION_get_timeout(pointer))
        let hint = Int64(clamping: SSL_SESSION_get_ticket_lifetime_hint(pointer))
        if hint > 0 { seconds = min(seconds, hint) }
        return .seconds(max(0, seconds))
    }
}

/// Owns a `STACK_OF(X509)` and the references it holds.
final class CertificateStackOwner {
    let pointer: OpaquePointer

    init?(_ certificates: [X509Owner]) {
        guard let stack = courier_sk_X509_new_null() else { return nil }
        pointer = stack
        countObjectCreated()
        for certificate in certificates where courier_sk_X509_push_up_ref(stack, certificate.pointer) != 1 {
            return nil
        }
    }

    deinit {
        courier_sk_X509_pop_free(pointer)
        countObjectFreed()
    }
}

/// Reads a borrowed `STACK_OF(X509)` into owners (each takes a reference of its own).
func certificateOwners(of stack: OpaquePointer?) -> [X509Owner] {
    guard let stack else { return [] }
    let count = courier_sk_X509_num(stack)
    var owners: [X509Owner] = []
    owners.reserveCapacity(Int(count))
    for index in 0..<count {
        if let certificate = courier_sk_X509_value(stack, index) {
            owners.append(X509Owner(retaining: certificate))
        }
    }
    return owners
}

/// Owns one reference to an `SSL_CTX`.
final class SSLContextOwner: @unchecked Sendable {
    // SAFETY (Sendable): the context is configured in its owner's init, before it is shared; after
    // that only SSL_new (documented thread-safe on a configured SSL_CTX) and the internally locked
    // session and ticket machinery touch it.
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        countObjectCreated()
    }

    deinit {
        SSL_CTX_free(pointer)
        countObjectFreed()
    }
}
