// Set-Cookie fields arrive one per field line, never joined: a response head goes through
// CourierHTTP1's ResponseHeadParser at every cut (SplitHarness: whole, byte by byte, every two-way
// split, with trailing bytes), its Set-Cookie fields into a store, and the result must not depend
// on where the network cut the head.

import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierTestSupport
import Testing

@Suite("Set-Cookie fields from a parsed response head")
struct SetCookieFieldsTests {
    struct Outcome: Equatable {
        var fields: [String]
        var cookieField: String?
    }

    static func feed(_ chunks: [[UInt8]]) -> Outcome? {
        var parser = ResponseHeadParser()
        var buffer = ByteBuffer()
        for chunk in chunks {
            buffer.writeBytes(chunk)
            guard case .complete(let head, _)? = try? parser.parse(buffer) else { continue }
            let fields = head.headers.headers["Set-Cookie"]
            var store = CookieStore()
            _ = store.receive(setCookieFields: fields, from: target("http://www.example.test/a/b")!, now: goNow)
            return Outcome(fields: fields, cookieField: store.cookieFieldValue(for: target("http://www.example.test/a/c")!, now: goNow))
        }
        return nil
    }

    @Test("each field line is one cookie, commas and all, at every cut")
    func fieldsAtEveryCut() {
        let head = Array(("HTTP/1.1 200 OK\r\n"
            + "Set-Cookie: a=1, b=2; Path=/\r\n"
            + "Content-Length: 0\r\n"
            + "set-cookie: c=3; Expires=Wed, 09 Jun 2100 10:18:14 GMT\r\n"
            + "SET-COOKIE:d=\"4\"\r\n"
            + "Set-Cookie: e=5; Secure\r\n"
            + "\r\n").utf8)
        let (outcome, mismatches) = SplitHarness.run(head, trailing: Array("HTTP/1.1 200 OK\r\n".utf8)) { SetCookieFieldsTests.feed($0) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
        #expect(outcome == Outcome(fields: ["a=1, b=2; Path=/", "c=3; Expires=Wed, 09 Jun 2100 10:18:14 GMT", "d=\"4\"", "e=5; Secure"],
                                   cookieField: "c=3; d=\"4\"; a=1, b=2"))  // /a before /
    }
}
