// HTTPRequest.Body.asyncStream: bytes produced by async code go out as they come (Content-Length
// or chunked), empty chunks are skipped, a replayable source is read again after a 307, a one-pass
// source is refused a second pass (the redirect fails instead of sending a short body), and a
// declared length is held.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import Testing

/// Yields `pieces` (after a suspension each), counting the readers made.
struct AsyncPieces: AsyncBodyStream {
    let pieces: [String]
    let replayable: Bool
    let readers = Counter()

    var isReplayable: Bool { replayable }

    struct Reader: AsyncBodyReader {
        var rest: [String]
        mutating func next() async throws -> ByteBuffer? {
            await Task.yield()
            guard !rest.isEmpty else { return nil }
            return ByteBuffer(string: rest.removeFirst())
        }
    }

    struct SecondPass: Error {}

    func makeAsyncReader() throws -> any AsyncBodyReader {
        readers.increment()
        if !replayable && readers.count > 1 { throw SecondPass() }
        return Reader(rest: pieces)
    }
}

extension SessionTests {
    @Suite("asynchronous request bodies")
    struct AsyncBodyTests {
        @Test("known length and chunked; empty chunks skipped")
        func framing() async throws {
            let server = try await LoopbackServer.start()
            let session = Session()
            for length: UInt64? in [9, nil] {
                let body = AsyncPieces(pieces: ["abc", "", "def", "ghi"], replayable: true)
                let task = session.dataTask(with: server.request(.post, "/echo", body: .asyncStream(length: length, body)),
                                            serializer: StringResponseSerializer())
                task.resume()
                let echo = try await task.value
                #expect(echo.contains("\"body\":\"abcdefghi\""), "\(echo)")
                #expect(echo.contains(length == nil ? "[\"Transfer-Encoding\",\"chunked\"]" : "[\"Content-Length\",\"9\"]"), "\(echo)")
            }
            await session.invalidateAndCancel()
            await server.shutdown()
        }

        @Test("307: a replayable source is read again; a one-pass source fails the redirect")
        func redirects() async throws {
            let server = try await LoopbackServer.start(.init(scripts: [
                "/temporary": { _ in [.response(status: 307, headers: ["Location: /echo"])] },
            ]))
            let session = Session()
            let again = AsyncPieces(pieces: ["one", "two"], replayable: true)
            let task = session.dataTask(with: server.request(.post, "/temporary", body: .asyncStream(length: nil, again)),
                                        serializer: StringResponseSerializer())
            task.resume()
            #expect(try await task.value.contains("\"body\":\"onetwo\""))
            #expect(again.readers.count == 2)

            let once = AsyncPieces(pieces: ["one", "two"], replayable: false)
            let refused = session.dataTask(with: server.request(.post, "/temporary", body: .asyncStream(length: 6, once)),
                                           serializer: StringResponseSerializer())
            refused.resume()
            do {
                _ = try await refused.value
                Issue.record("a one-pass body was sent twice")
            } catch {
                #expect(error.code == .fileReadFailed)
                #expect(error.message.contains("cannot start"), "\(error)")
            }
            #expect(once.readers.count == 2)
            await session.invalidateAndCancel()
            await server.shutdown()
        }

        @Test("a declared length is held both ways; --offline rendering refuses")
        func lengths() async throws {
            let server = try await LoopbackServer.start()
            let session = Session()
            for (length, words) in [(UInt64(4), "short of its declared"), (UInt64(2), "longer than its declared")] {
                let body = AsyncPieces(pieces: ["abc"], replayable: true)
                let task = session.dataTask(with: server.request(.post, "/upload", body: .asyncStream(length: length, body)))
                task.resume()
                do {
                    _ = try await task.value
                    Issue.record("length \(length) passed")
                } catch {
                    #expect(error.code == .fileReadFailed)
                    #expect(error.message.contains(words == "short of its declared" ? "ended after 3 of its declared 4" : words), "\(error)")
                }
            }
            await #expect(throws: SessionError.self) {
                try await session.renderedRequest(for: server.request(.post, "/upload", body: .asyncStream(length: 3, AsyncPieces(pieces: ["abc"], replayable: true))))
            }
            await session.invalidateAndCancel()
            await server.shutdown()
        }
    }
}
