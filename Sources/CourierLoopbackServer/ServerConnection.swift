// ServerConnection: one accepted connection of the loopback server, on the loop thread.
//
// What it owns: the socket, its registration, the optional TLS engine, the plaintext input buffer
// (reused: read into, parsed in place, compacted) and the wire output (a GatherList: plaintext
// pieces for plain HTTP, ciphertext for TLS).
//
// Phases: handshaking (TLS) → head → body → responding (or scripting) → head … ; stalled and closed
// are terminal. One request at a time; pipelined bytes wait in `input` until the response is out.
//
// Invariant: every method runs on the loop thread (from the loop's handlers, timers or
// `ServerCore`), which is what the `@unchecked Sendable` conformance rests on.
//
// RFC 9112 §9.3 (persistence: Connection: close, HTTP/1.0), §9.6 (closing: a response with
// `Connection: close` is followed by a close), RFC 9110 §10.1.1 (100-continue).

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

final class ServerConnection: @unchecked Sendable {
    private enum Phase {
        case handshaking
        case head
        case body(RequestContext)
        case responding
        case scripting
        case stalled
        case closed
    }

    private unowned let core: ServerCore
    private let socket: Socket
    private var registration: EventLoop.Registration?
    private var tls: TLSConnection?
    private var cipherIn = ByteBuffer()
    private var input = ByteBuffer()
    private var output = GatherList()
    private var producer: BodyProducer?
    private var parser = RequestHeadParser()
    private var phase = Phase.head
    private var closeAfterResponse = false
    private var closeWhenFlushed = false
    private var actions: [LoopbackAction] = []
    private var nextAction = 0
    private var requestIndex = 0
    private var peerEOF = false
    private var interest: EventLoop.Interest = .readable

    init(core: ServerCore, socket: Socket) {
        self.core = core
        self.socket = socket
    }

    func start() {
        // The head and the start of the body may go out in separate writes; without this, Nagle
        // holds the second one for the peer's delayed ACK (40 ms on Linux).
        try? socket.setNoDelay(true)
        if let context = core.tls {
            do {
                tls = try TLSConnection(context: context)
            } catch {
                close()
                return
            }
            phase = .handshaking
        }
        if core.configuration.stallsConnections { phase = .stalled }
        do {
            registration = try core.loop.register(socket, interest: .readable) { [unowned self] events in
                handle(events)
            }
        } catch {
            close()
        }
    }

    private func handle(_ events: EventLoop.Events) {
        if case .closed = phase { return }
        if events.contains(.writable) { flush() }
        if case .closed = phase { return }
        if !events.intersection([.readable, .hangUp, .error, .readHangUp]).isEmpty { readInput() }
    }

    // MARK: Reading

    private func readInput() {
        if case .stalled = phase {
            discardInput()
            return
        }
        if input.readerIndex > 65536 || (input.readableBytes == 0 && input.readerIndex > 0) { input.discardReadBytes() }
        do {
            if let tls {
                // The engine reads the ciphertext in place (no copy); compact before each read.
                if cipherIn.readableBytes == 0 { cipherIn.clear() } else { cipherIn.discardReadBytes() }
                let result = try socket.read(into: &cipherIn, maxBytes: core.configuration.readSize)
                switch result {
                case .wouldBlock: return
                case .processed(0): tls.receivedEOF(); peerEOF = true
                case .processed: break
                }
                if case .handshaking = phase {
                    try driveHandshake()
                    if case .handshaking = phase { return }
                }
                readLoop: while true {
                    switch try tls.readPlaintext(from: &cipherIn, into: &input) {
                    case .bytes: continue
                    case .needsMoreData: break readLoop
                    case .closed: peerEOF = true; break readLoop
                    }
                }
                if tls.hasPendingCiphertext { output.append(.buffer(tls.pendingCiphertext())) }
            } else {
                switch try socket.read(into: &input, maxBytes: core.configuration.readSize) {
                case .wouldBlock: return
                case .processed(0): peerEOF = true
                case .processed: break
                }
            }
        } catch {
            close()
            return
        }
        process()
        if !output.isEmpty { flush() }
    }

    private func discardInput() {
        var scratch = ByteBuffer()
        switch try? socket.read(into: &scratch, maxBytes: 65536) {
        case .processed(let n)? where n > 0: return
        case .wouldBlock?: return
        default: close()
        }
    }

    private func driveHandshake() throws {
        guard let tls else { return }
        while true {
            switch try tls.handshake(from: &cipherIn) {
            case .needsWrite:
                output.append(.buffer(tls.pendingCiphertext()))
            case .needsMoreData:
                if tls.hasPendingCiphertext { output.append(.buffer(tls.pendingCiphertext())) }
                if peerEOF { close() }
                flush()
                return
            case .complete:
                if tls.hasPendingCiphertext { output.append(.buffer(tls.pendingCiphertext())) }
                phase = .head
                flush()
                return
            }
        }
    }

    // MARK: Requests

    private func process() {
        while true {
            switch phase {
            case .head:
                guard input.readableBytes > 0 else {
                    if peerEOF { close() }
                    return
                }
                let result: RequestHeadParser.Result
                do {
                    result = try parser.parse(input)
                } catch {
                    answerBadRequest()
                    return
                }
                guard case .complete(let head, let consumed) = result else {
                    if peerEOF { close() }
                    return
                }
                requestIndex += 1
                core.counters.requests.add(1, ordering: .releasing)
                let framing: BodyFraming
                do {
                    framing = try BodyFraming.forRequest(head)
                } catch {
                    answerBadRequest()
                    return
                }
                let context = RequestContext(head: head, framing: framing, index: requestIndex,
                                             scripts: core.configuration.scripts)
                input.moveReaderIndex(forwardBy: consumed)
                if head.headers.containsToken("100-continue", inField: "expect"), !context.route.isScript,
                   framing != .noBody {
                    send(GatherList([.staticBytes("HTTP/1.1 100 Continue\r\n\r\n")]))
                }
                phase = .body(context)
            case .body(var context):
                phase = .responding  // drop the reference while the decoder is mutated
                do {
                    while let event = try context.decoder.next(from: &input) {
                        if case .data(let slice) = event {
                            context.receive(slice)
                            continue
                        }
                        respond(context)
                        break
                    }
                } catch {
                    answerBadRequest()
                    return
                }
                if !context.decoder.isComplete {
                    phase = .body(context)
                    if peerEOF { close() }
                    return
                }
            case .responding, .scripting, .stalled, .closed, .handshaking:
                return
            }
        }
    }

    private func answerBadRequest() {
        closeAfterResponse = true
        phase = .responding
        send(GatherList([.staticBytes("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")]))
        flush()
    }

    private func respond(_ context: RequestContext) {
        closeAfterResponse = context.closeRequested
        if case .script(let script) = context.route {
            actions = script(context.loopbackRequest)
            nextAction = 0
            phase = .scripting
            runActions()
            return
        }
        let reply = context.builtInReply(content: core.content)
        if reply.closes { closeAfterResponse = true }
        var headers = reply.headers
        if closeAfterResponse && !headers.contains(name: "connection") { headers.add(name: "Connection", value: "close") }
        let encoded: EncodedHead
        do {
            encoded = try ResponseHeadEncoder().encode(status: reply.status, headers: headers, body: reply.length,
                                                      requestMethod: context.method, peerVersion: context.version)
        } catch {
            close()
            return
        }
        phase = .responding
        send(encoded.bytes)
        switch encoded.framing {
        case .noBody: producer = nil
        case .contentLength, .untilClose: producer = reply.producer
        case .chunked: producer = reply.producer?.chunkedVersion()
        }
        if encoded.framing == .untilClose { closeAfterResponse = true }
        flush()
    }

    // MARK: Scripts

    private func runActions() {
        guard case .scripting = phase else { return }
        while nextAction < actions.count {
            let action = actions[nextAction]
            nextAction += 1
            switch action {
            case .write(let bytes):
                send(GatherList([.buffer(ByteBuffer(bytes: bytes))]))
            case .writePattern(let count):
                var list = GatherList()
                var position: UInt64 = 0
                while position < UInt64(count) {
                    let slice = core.content.slice(at: position, length: count - Int(position))
                    position += UInt64(slice.readableBytes)
                    list.append(.buffer(slice))
                }
                send(list)
            case .pause(let duration):
                flush()
                _ = core.loop.scheduleTimer(after: duration) { [weak self] in self?.runActions() }
                return
            case .closeNotify:
                if let tls {
                    _ = try? tls.shutdown()
                    if tls.hasPendingCiphertext { output.append(.buffer(tls.pendingCiphertext())) }
                }
            case .close, .reset:
                closeWhenFlushed = true
                flush()
                return
            case .stall:
                phase = .stalled
                flush()
                return
            }
        }
        phase = .responding
        flush()
    }

    // MARK: Writing

    /// Queues plaintext for the wire (encrypting it first with TLS).
    private func send(_ list: GatherList) {
        guard !list.isEmpty else { return }
        if let tls {
            do {
                try tls.writePlaintext(list)
            } catch {
                close()
                return
            }
            output.append(.buffer(tls.pendingCiphertext()))
        } else {
            output.append(contentsOf: list)
        }
    }

    private func flush() {
        if case .closed = phase { return }
        while true {
            // Top up small outputs (a head) with body bytes so they leave in one gather write.
            if output.count < BodyProducer.budget, var body = producer {
                producer = nil  // `body` is then the only owner of its state (a compressor's zlib stream)
                var list = GatherList()
                let done = body.fill(&list, content: core.content)
                producer = done ? nil : body
                send(list)
                if case .closed = phase { return }
                if output.isEmpty && done { continue }
            }
            if output.isEmpty { break }
            do {
                switch try socket.write(gathering: &output) {
                case .processed: continue
                case .wouldBlock:
                    setInterest([.readable, .writable])
                    return
                }
            } catch {
                close()
                return
            }
        }
        setInterest(.readable)
        if closeWhenFlushed {
            close()
            return
        }
        if case .responding = phase { responseFinished() }
    }

    private func responseFinished() {
        if closeAfterResponse {
            if let tls, tls.isHandshakeComplete {
                _ = try? tls.shutdown()
                if tls.hasPendingCiphertext { output.append(.buffer(tls.pendingCiphertext())) }
            }
            closeWhenFlushed = true
            flush()
            return
        }
        phase = .head
        process()
        if !output.isEmpty { flush() }
    }

    private func setInterest(_ wanted: EventLoop.Interest) {
        guard let registration, wanted != interest else { return }
        do {
            try core.loop.setInterest(wanted, for: registration)
            interest = wanted
        } catch {
            close()
        }
    }

    /// Closes at once (no close_notify unless one was queued and written). Idempotent.
    func close() {
        if case .closed = phase { return }
        phase = .closed
        producer = nil
        output = GatherList()
        if let registration { core.loop.deregister(registration) }
        registration = nil
        try? socket.close()
        core.connectionClosed(self)
    }
}
