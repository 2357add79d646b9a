import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierURL
import Testing
@testable import Courier

@Suite struct MultipartRequestTests {
    let uri = try! URI(parsing: "http://a.example/upload")
    let boundary = MultipartBoundary(randomBits: 0x0123_4567_89AB_CDEF)

    @Test func parametersComeFirstThenTheClosureParts() throws {
        let request = try FormRequestSerializer().multipartRequest(
            method: .post, uri: uri, parameters: ["b": ["x": 1, "y": nil], "a": ["p", "q"]], boundary: boundary
        ) { form in
            try form.appendData(ByteBuffer(string: "DATA"), name: "file", fileName: "f.txt", mimeType: "text/plain")
        }
        guard case .multipart(let form) = request.body else { Issue.record("not multipart"); return }
        #expect(form.parts.map(\.name) == ["a[]", "a[]", "b[x]", "b[y]", "file"])
        #expect(request.headers.first(name: "Content-Type") == "multipart/form-data; boundary=Boundary+0123456789ABCDEF")
        #expect(request.headers.first(name: "Content-Length") == String(form.contentLength))
        let text = String(decoding: (try form.renderedBytes()), as: UTF8.self)
        #expect(text.hasPrefix("--Boundary+0123456789ABCDEF\r\nContent-Disposition: form-data; name=\"a[]\"\r\n\r\np\r\n"))
        #expect(text.contains("name=\"b[y]\"\r\n\r\n\r\n--"))
        #expect(UInt64((try form.renderedBytes()).count) == form.contentLength)
    }

    @Test func emptyFormHasNoBody() throws {
        let request = try FormRequestSerializer().multipartRequest(method: .post, uri: uri, parameters: nil, boundary: boundary)
        guard case .none = request.body else { Issue.record("expected no body"); return }
        #expect(!request.headers.contains(name: "Content-Type"))
    }

    @Test func getAndHeadAreRefused() {
        for name in ["GET", "head"] {
            #expect { try FormRequestSerializer().multipartRequest(method: try HTTPMethod(name), uri: uri, parameters: nil, boundary: boundary) } throws: {
                ($0 as? RequestSerializationError)?.code == .methodCannotHaveBody
            }
        }
    }

    @Test func injectedRandomSourceMakesTheBoundary() throws {
        struct Fixed: RandomNumberGenerator { mutating func next() -> UInt64 { 0xFEED_FACE_CAFE_BEEF } }
        var rng = Fixed()
        let request = try JSONRequestSerializer().multipartRequest(method: .put, uri: uri, parameters: ["k": "v"], using: &rng)
        #expect(request.headers.first(name: "Content-Type") == MultipartBoundary(randomBits: 0xFEED_FACE_CAFE_BEEF).contentType)
    }

    @Test func closureErrorsAreWrapped() {
        struct Boom: Error {}
        #expect { try FormRequestSerializer().multipartRequest(method: .post, uri: uri, parameters: nil, boundary: boundary) { _ in throw Boom() } } throws: {
            ($0 as? RequestSerializationError)?.code == .multipartFailed
        }
    }

    @Test func pairFlatteningFollowsAFNetworking() {
        let pairs = MultipartFieldPairs.pairs(of: ["z": .set(["10", "2", "1", "2"]), "a": ["b": ["c": [1, 2]]], "d": 1.5, "e": true])
        #expect(pairs.map(\.name) == ["a[b][c][]", "a[b][c][]", "d", "e", "z", "z", "z"])
        #expect(pairs.map(\.value) == ["1", "2", "1.5", "1", "1", "10", "2"])
    }
}

extension MultipartRequestTests {
    /// AFNetworking's NSData parameters: a field with exactly those bytes, in the pairs' order.
    @Test func byteParametersBecomeFieldsWithThoseBytes() throws {
        let raw: [UInt8] = [0x00, 0xFF, 0xFE]
        let request = try FormRequestSerializer().multipartRequest(
            method: .post, uri: uri, parameters: ["z": "text", "b": QueryValue(bytes: raw), "n": ["k": .bytes(ByteBuffer(string: "v"))]],
            boundary: boundary)
        guard case .multipart(let form) = request.body else { Issue.record("not multipart"); return }
        #expect(form.parts.map(\.name) == ["b", "n[k]", "z"])
        guard case .bytes(let first) = form.parts[0].body, case .bytes(let second) = form.parts[1].body else {
            Issue.record("not in-memory fields"); return
        }
        #expect(first.readableBytesArray == raw)
        #expect(second.readableString == "v")
        #expect(form.parts[0].fileName == nil && form.parts[0].contentType == nil, "a plain field, as appendPartWithFormData:name:")
    }
}
