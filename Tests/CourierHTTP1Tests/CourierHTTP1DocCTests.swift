// The CourierHTTP1 catalog's landing page (Sources/CourierHTTP1/CourierHTTP1.docc/CourierHTTP1.md),
// compiled and run: the block between `// doc: FILE N` and `// end doc` is the page's Nth swift
// block, line for line (scripts/check-doc-examples); what follows it checks what its comments say.

import CourierBytes
import CourierHTTP1
import Testing

@Suite struct CourierHTTP1DocCTests {
    @Test("the CourierHTTP1 catalog's example 1 compiles and runs")
    func example1() throws {
        // doc: Sources/CourierHTTP1/CourierHTTP1.docc/CourierHTTP1.md 1

        var parser = ResponseHeadParser()
        let bytes = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello")
        if case .complete(let head, let consumed) = try parser.parse(bytes) {
            print(head.status, head.headers.firstString("content-type") ?? "", consumed)   // 200 text/plain 64
        }

        var request = ByteBuffer()
        _ = try RequestHeadEncoder().encode(method: .get, target: "/", host: "example.com",
                                            headers: HTTPHeaders([("Accept", "*/*")]), body: .none, into: &request)
        print(request.readableString)   // GET / HTTP/1.1, Host: example.com, Accept: */*
        // end doc
        var again = ResponseHeadParser()
        guard case .complete(let head, 64) = try again.parse(bytes) else { Issue.record("incomplete"); return }
        #expect(head.status == 200 && head.headers.firstString("content-type") == "text/plain")
        #expect(request.readableString == "GET / HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
    }
}
