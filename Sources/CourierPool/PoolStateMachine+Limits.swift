// The pool's limits: every bound the machine enforces, with its default and where the default
// comes from (design §2, §5; docs/pool.md repeats the table).

extension PoolStateMachine {
    /// Every bound the pool enforces. Defaults follow AsyncHTTPClient (AHC) unless noted.
    public struct Limits: Hashable, Sendable {
        /// Connections per pool key, counting those being established, idle and leased. Must be at
        /// least 1. Default 8: AHC's `concurrentHTTP1ConnectionsPerHostSoftLimit` (8). Go's
        /// `Transport.MaxConnsPerHost` and curl's `CURLMOPT_MAX_HOST_CONNECTIONS` default to 0
        /// (unbounded); browsers use 6. A bound keeps one slow origin from taking every socket.
        public var maxConnectionsPerOrigin: Int

        /// How long a connection may sit idle in the pool before the machine closes it. Default
        /// 60 s: AHC's `ConnectionPool.idleTimeout` (60 s). Go's `DefaultTransport` uses 90 s
        /// (`IdleConnTimeout`), curl 118 s (`CURLOPT_MAXAGE_CONN`). Servers commonly drop idle
        /// connections after 5–75 s (nginx `keepalive_timeout` 75 s), and a shorter client timeout
        /// means fewer requests written onto a connection the server is closing.
        public var idleTimeout: Duration

        /// How long a request may wait for a connection when the caller gives no deadline of its
        /// own. Default 10 s: AHC bounds a queued request by `connectionCreationTimeout` (the connect
        /// timeout, 10 s), and design §5 sets Courier's connect timeout to 10 s, so a request never
        /// waits for a connection longer than establishing one is allowed to take. Go has no
        /// separate bound (the request's context bounds it).
        public var waitTimeout: Duration

        /// Requests that may wait per pool key; one more fails at once with
        /// ``PoolError/Code/tooManyWaiters``. Must be at least 1. Default 1024. AHC, Go and curl
        /// queue without bound; Courier bounds the queue so a stalled origin cannot grow memory
        /// without limit, and bounds it per key so it cannot starve the other origins.
        public var maxWaitersPerOrigin: Int

        /// Creates limits; every parameter defaults to the documented value.
        /// - Parameters:
        ///   - maxConnectionsPerOrigin: connections per key, at least 1 (default 8).
        ///   - idleTimeout: idle time before a pooled connection is closed (default 60 s).
        ///   - waitTimeout: default wait for a connection (default 10 s).
        ///   - maxWaitersPerOrigin: waiting requests per key, at least 1 (default 1024).
        public init(
            maxConnectionsPerOrigin: Int = 8,
            idleTimeout: Duration = .seconds(60),
            waitTimeout: Duration = .seconds(10),
            maxWaitersPerOrigin: Int = 1024
        ) {
            precondition(maxConnectionsPerOrigin >= 1, "maxConnectionsPerOrigin must be at least 1")
            precondition(maxWaitersPerOrigin >= 1, "maxWaitersPerOrigin must be at least 1")
            self.maxConnectionsPerOrigin = maxConnectionsPerOrigin
            self.idleTimeout = idleTimeout
            self.waitTimeout = waitTimeout
            self.maxWaitersPerOrigin = maxWaitersPerOrigin
        }
    }
}
