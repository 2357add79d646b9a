// WireTap: the bytes connections send and receive, as they are on the wire below HTTP and above
// TLS (plaintext: before encryption, after decryption), for curl's --trace and --trace-ascii in the
// courier CLI. Package-only: it shows request and response bytes, credentials included, so it is
// a debugging door for the tool, not a library feature.
//
// The tap is called on the event loop, in the order the connection queues and reads bytes: the
// request head as one record, each request body piece as framed (chunk-size lines included), and
// every read's newly received bytes (the unconsumed tail a read carries over is not repeated).
// With a tap, transfers send files and receive downloads through the process (no sendfile, no
// splice), so every byte is seen. Without one (nil, the default) nothing is built or called.

/// An observer of the bytes connections send and receive, and of task events in step with them.
package struct WireTap: Sendable {
    /// What a record's bytes are.
    package enum Record: Sendable, Equatable {
        /// A request head, whole.
        case sentHead
        /// A piece of a request body as it goes on the wire (chunk framing included).
        case sentBody
        /// Bytes just read (heads and body, framing included, as they came).
        case received
    }

    /// Called on the event loop for each record: the connection (an identity unique among live
    /// connections), what the bytes are, and the bytes. It must not block.
    package let bytes: @Sendable (_ connection: UInt, _ record: Record, _ bytes: [UInt8]) -> Void
    /// Called synchronously where a task emits an event (before the transfer goes on), so events
    /// and bytes reach the observer in the order they happened.
    package let event: @Sendable (TaskEvent) -> Void

    /// A tap with its two observers.
    package init(bytes: @escaping @Sendable (_ connection: UInt, _ record: Record, _ bytes: [UInt8]) -> Void,
                 event: @escaping @Sendable (TaskEvent) -> Void) {
        self.bytes = bytes
        self.event = event
    }
}
