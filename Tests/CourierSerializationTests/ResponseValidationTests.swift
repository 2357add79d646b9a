import CourierBytes
import CourierHTTP1
import CourierJSON
import Testing
@testable import Courier

private func head(_ status: Int, _ contentType: String?) -> HTTPResponseHead {
    HTTPResponseHead(status: status, headers: contentType.map { HTTPHeaders([("Content-Type", $0)]) } ?? HTTPHeaders())
}

@Suite struct ResponseHeadTests {
    @Test func contentTypeParsing() {
        #expect(HTTPResponseHead.parseContentType("Text/HTML; Charset=\"UTF-8\"")! == ("text/html", "utf-8"))
        #expect(HTTPResponseHead.parseContentType("application/json")!.mimeType == "application/json")
        #expect(HTTPResponseHead.parseContentType("application/json")!.charset == nil)
        #expect(HTTPResponseHead.parseContentType(" a/b ; x=y ;charset=latin1")! == ("a/b", "latin1"))
        #expect(HTTPResponseHead.parseContentType("nonsense") == nil)
        #expect(HTTPResponseHead.parseContentType("/json") == nil)
        #expect(head(200, "text/plain").mimeType == "text/plain")
        #expect(head(200, nil).mimeType == nil)
    }

    @Test func fromAParsedHTTP1Head() throws {
        var parser = ResponseHeadParser()
        let wire = ByteBuffer(string: "HTTP/1.1 404 Not Found\r\nContent-Type: Application/JSON; charset=UTF-8\r\nX-A: 1\r\n\r\n")
        guard case .complete(let parsed, _) = try parser.parse(wire) else { Issue.record("incomplete"); return }
        let head = HTTPResponseHead(parsed)
        #expect(head.status == 404)
        #expect(head.mimeType == "application/json")
        #expect(head.charset == "utf-8")
        #expect(head.headers.first(name: "x-a") == "1")
    }
}

@Suite struct ResponseValidationTests {
    let json = JSONResponseSerializer()
    let body = ByteBuffer(string: #"{"a":1}"#)

    @Test func okStatusOkType() throws {
        #expect(try json.serialize(head: head(200, "application/json"), body: body) == ["a": 1])
        #expect(try json.serialize(head: head(299, "text/json; charset=utf-8"), body: body) == ["a": 1])
    }

    @Test func okStatusBadType() {
        do throws(ResponseSerializationError) {
            _ = try json.serialize(head: head(200, "text/html"), body: body)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unacceptableContentType)
            #expect(error.code.afNetworkingCode == -1016)
            #expect(error.underlying == nil)
            #expect(error.mimeType == "text/html")
            #expect(error.body == body)
        }
    }

    @Test func badStatusOkTypeStillParses() {
        do throws(ResponseSerializationError) {
            _ = try json.serialize(head: head(404, "application/json"), body: body)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.code.afNetworkingCode == -1011)
            #expect(error.status == 404)
            #expect(error.underlying == nil)
            #expect((error.value as? JSONValue?) == .some(["a": 1]))
            #expect(error.body == body)
        }
    }

    @Test func badStatusWithEmptyJSONBodyCarriesNoValue() {
        do throws(ResponseSerializationError) {
            _ = try json.serialize(head: head(404, "application/json"), body: ByteBuffer())
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.value == nil)
        }
    }

    @Test func badStatusBadTypeWrapsTheTypeError() {
        do throws(ResponseSerializationError) {
            _ = try json.serialize(head: head(500, "text/html"), body: body)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unacceptableStatusCode)
            let inner = error.underlying as? ResponseSerializationError
            #expect(inner?.code == .unacceptableContentType)
            #expect(error.value == nil)
            #expect(error.hasCode(.unacceptableContentType))
        }
    }

    @Test func badTypeWithEmptyBodyIsNoError() throws {
        #expect(try json.serialize(head: head(200, "text/html"), body: ByteBuffer()) == nil)
        #expect(try json.serialize(head: head(204, nil), body: ByteBuffer()) == nil)
        #expect(try DataResponseSerializer().serialize(head: head(200, nil), body: ByteBuffer()) == ByteBuffer())
    }

    @Test func badStatusBadTypeEmptyBodyIsOnlyAStatusError() {
        do throws(ResponseSerializationError) {
            _ = try json.serialize(head: head(500, "text/html"), body: ByteBuffer())
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.underlying == nil)
        }
    }

    @Test func badStatusAndUnparsableBodyGivesTheParseErrorOverTheStatusError() {
        do throws(ResponseSerializationError) {
            _ = try json.serialize(head: head(500, "application/json"), body: ByteBuffer(string: "{oops"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect((error.underlying as? ResponseSerializationError)?.code == .unacceptableStatusCode)
        }
    }

    @Test func nilSetsAcceptAnything() throws {
        var serializer = JSONResponseSerializer()
        serializer.acceptableStatusCodes = nil
        serializer.acceptableContentTypes = nil
        #expect(try serializer.serialize(head: head(503, "text/html"), body: body) == ["a": 1])
        var custom = DataResponseSerializer()
        custom.acceptableStatusCodes = [200, 404]
        #expect(throws: Never.self) { try custom.serialize(head: head(404, nil), body: body) }
        #expect(throws: ResponseSerializationError.self) { try custom.serialize(head: head(201, nil), body: body) }
    }

    @Test func validationMatrix() {
        let bodies: [ByteBuffer] = [ByteBuffer(), ByteBuffer(string: "[1]")]
        for status in [200, 400] {
            for type in ["application/json", "image/png", nil] {
                for body in bodies {
                    let (isValid, error) = json.validate(head: head(status, type), body: body)
                    // No media type and no body (a 204, Content-Length: 0): nothing to judge.
                    let statusOK = status == 200, typeOK = type == "application/json" || (type == nil && body.isEmpty)
                    #expect(isValid == (statusOK && typeOK))
                    let expectedTop: ResponseSerializationError.Code? =
                        !statusOK ? .unacceptableStatusCode : (!typeOK && !body.isEmpty ? .unacceptableContentType : nil)
                    #expect(error?.code == expectedTop)
                    if !statusOK {
                        let inner = (error?.underlying as? ResponseSerializationError)?.code
                        #expect(inner == (!typeOK && !body.isEmpty ? .unacceptableContentType : nil))
                    }
                }
            }
        }
    }
}

@Suite struct JSONResponseSerializerTests {
    let h = head(200, "application/json")

    @Test func emptyAndSingleSpaceQuirk() throws {
        let serializer = JSONResponseSerializer()
        #expect(try serializer.serialize(head: h, body: ByteBuffer()) == nil)
        #expect(try serializer.serialize(head: h, body: ByteBuffer(string: " ")) == nil)
        #expect { try serializer.serialize(head: h, body: ByteBuffer(string: "  ")) } throws: {
            ($0 as? ResponseSerializationError)?.code == .invalidJSON
        }
    }

    @Test func anyValueIsAJSONText() throws {
        // RFC 8259 §2: top-level scalars are JSON texts, accepted by default.
        #expect(try JSONResponseSerializer().serialize(head: h, body: ByteBuffer(string: "42")) == 42)
        #expect(try JSONResponseSerializer().serialize(head: h, body: ByteBuffer(string: "\"s\"")) == "s")
        #expect(try JSONResponseSerializer().serialize(head: h, body: ByteBuffer(string: "null")) == .null)
        #expect(try JSONResponseSerializer(removesKeysWithNullValues: true).serialize(head: h, body: ByteBuffer(string: "null")) == .null)
        // AFNetworking's strict reading is still there when asked for.
        #expect { try JSONResponseSerializer(allowsFragments: false).serialize(head: h, body: ByteBuffer(string: "42")) } throws: {
            ($0 as? ResponseSerializationError)?.code == .jsonFragmentNotAllowed
        }
        #expect(try JSONResponseSerializer(allowsFragments: false).serialize(head: h, body: ByteBuffer(string: "[]")) == [])
    }

    @Test func byteOrderMarkAndRepeatedNames() throws {
        let body = ByteBuffer(bytes: [0xEF, 0xBB, 0xBF] + Array(#"{"a":1,"b":2,"a":null}"#.utf8))
        #expect(try JSONResponseSerializer().serialize(head: h, body: body) == ["b": 2, "a": nil])
        #expect(try JSONResponseSerializer(removesKeysWithNullValues: true).serialize(head: h, body: body) == ["b": 2])
    }

    @Test func documentSerializer() throws {
        let body = ByteBuffer(string: #"{"a":null,"b":[1,null,"x"]}"#)
        let document = try #require(try JSONDocumentResponseSerializer(removesKeysWithNullValues: true).serialize(head: h, body: body))
        #expect(JSONWriter.string(document.root) == #"{"b":[1,"x"]}"#)
        #expect(try JSONDocumentResponseSerializer().serialize(head: h, body: ByteBuffer(string: " ")) == nil)
        #expect { try JSONDocumentResponseSerializer().serialize(head: h, body: ByteBuffer(string: "[1,]")) } throws: {
            ($0 as? ResponseSerializationError)?.code == .invalidJSON && ($0 as? ResponseSerializationError)?.offset == 3
        }
    }

    @Test func nullRemoval() throws {
        let body = ByteBuffer(string: #"{"a":null,"b":{"c":null,"d":1},"e":[null,2]}"#)
        #expect(try JSONResponseSerializer(removesKeysWithNullValues: true).serialize(head: h, body: body) == ["b": ["d": 1], "e": [2]])
        #expect(try JSONResponseSerializer().serialize(head: h, body: body)?["a"] == .null)
    }

    @Test func parseErrorsCarryOffsetAndCode() {
        do throws(ResponseSerializationError) {
            _ = try JSONResponseSerializer().serialize(head: h, body: ByteBuffer(string: "[1,]"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code.afNetworkingCode == 3840)
            #expect(error.offset == 3)
            #expect(error.detail is JSONError)
            #expect(error.underlying == nil)
        }
    }

    @Test func acceptedTypes() throws {
        for type in ["application/json", "text/json", "text/javascript"] {
            #expect(try JSONResponseSerializer().serialize(head: head(200, type), body: ByteBuffer(string: "[]")) == [])
        }
    }

    @Test func decodable() throws {
        struct User: Decodable, Sendable, Equatable { var name: String; var age: Int }
        let serializer = DecodableResponseSerializer(User.self)
        #expect(try serializer.serialize(head: h, body: ByteBuffer(string: #"{"name":"a","age":3}"#)) == User(name: "a", age: 3))
        // An empty body is a User? (nil) but not a User: .decodingFailed, unless the status failed
        // too, which is the error then.
        #expect(try DecodableResponseSerializer(User?.self).serialize(head: h, body: ByteBuffer(string: " ")) == nil)
        #expect { try serializer.serialize(head: h, body: ByteBuffer(string: " ")) } throws: {
            ($0 as? ResponseSerializationError)?.code == .decodingFailed
        }
        #expect { try serializer.serialize(head: head(404, "application/json"), body: ByteBuffer()) } throws: {
            ($0 as? ResponseSerializationError)?.code == .unacceptableStatusCode
        }
        #expect { try serializer.serialize(head: h, body: ByteBuffer(string: #"{"name":"a"}"#)) } throws: {
            ($0 as? ResponseSerializationError)?.code == .decodingFailed
        }
        #expect { try serializer.serialize(head: h, body: ByteBuffer(string: #"{"name":}"#)) } throws: {
            ($0 as? ResponseSerializationError)?.code == .invalidJSON
        }
    }
}

@Suite struct StringResponseSerializerTests {
    @Test func charsets() throws {
        let s = StringResponseSerializer()
        #expect(try s.serialize(head: head(200, "text/plain"), body: ByteBuffer(bytes: [0xC3, 0xA9])) == "é")
        #expect(try s.serialize(head: head(200, "text/plain; charset=ISO-8859-1"), body: ByteBuffer(bytes: [0xE9, 0x41])) == "éA")
        #expect(try s.serialize(head: head(200, "text/plain; charset=latin1"), body: ByteBuffer(bytes: [0xFF])) == "ÿ")
        #expect(try s.serialize(head: head(200, "text/plain; charset=us-ascii"), body: ByteBuffer(string: "hi")) == "hi")
        #expect { try s.serialize(head: head(200, "text/plain; charset=us-ascii"), body: ByteBuffer(bytes: [0x41, 0x80])) } throws: {
            ($0 as? ResponseSerializationError)?.code == .invalidText && ($0 as? ResponseSerializationError)?.offset == 1
        }
        #expect { try s.serialize(head: head(200, "text/plain"), body: ByteBuffer(bytes: [0x41, 0x42, 0xC3])) } throws: {
            ($0 as? ResponseSerializationError)?.code == .invalidText && ($0 as? ResponseSerializationError)?.offset == 2
        }
        #expect { try s.serialize(head: head(200, "text/plain"), body: ByteBuffer(bytes: [0xED, 0xA0, 0x80])) } throws: {
            ($0 as? ResponseSerializationError)?.offset == 0
        }
        #expect { try s.serialize(head: head(200, "text/plain; charset=shift_jis"), body: ByteBuffer(string: "x")) } throws: {
            ($0 as? ResponseSerializationError)?.code == .unknownCharset && ($0 as? ResponseSerializationError)?.code.afNetworkingCode == 264
        }
    }
}

@Suite struct CompoundResponseSerializerTests {
    @Test func firstValueWinsElseTheBody() throws {
        var compound = CompoundResponseSerializer()
        compound.append(JSONResponseSerializer())
        compound.append(StringResponseSerializer())
        let json = try compound.serialize(head: head(200, "application/json"), body: ByteBuffer(string: "[1]"))
        #expect(json as? JSONValue == [1])
        let text = try compound.serialize(head: head(200, "text/plain"), body: ByteBuffer(string: "hello"))
        #expect(text as? String == "hello")
        // JSON's empty-body quirk gives no value, so the string serializer wins with "".
        let empty = try compound.serialize(head: head(200, "application/json"), body: ByteBuffer())
        #expect(empty as? String == "")

        // No member accepts image/png: AFNetworking's fallback to AFHTTPResponseSerializer gives
        // the bytes, with no error.
        var strict = CompoundResponseSerializer()
        strict.append(JSONResponseSerializer())
        var s = StringResponseSerializer()
        s.acceptableContentTypes = ["text/plain"]
        strict.append(s)
        let png = try strict.serialize(head: head(200, "image/png"), body: ByteBuffer(string: "x"))
        #expect((png as? ByteBuffer)?.readableString == "x")
    }

    @Test("no member produces a value: the body, after the compound's own validation (AFHTTPResponseSerializer's)")
    func fallback() throws {
        var compound = CompoundResponseSerializer()
        compound.append(JSONResponseSerializer())
        // A 200 text/plain body to a JSON-only compound: data, no error.
        let plain = try compound.serialize(head: head(200, "text/plain"), body: ByteBuffer(string: "hello"))
        #expect((plain as? ByteBuffer)?.readableString == "hello")
        // JSON that does not parse: the member fails, the bytes come back.
        let broken = try compound.serialize(head: head(200, "application/json"), body: ByteBuffer(string: "{bad"))
        #expect((broken as? ByteBuffer)?.readableString == "{bad")
        // A status outside 200–299: -1011, carrying the bytes as the value.
        #expect { try compound.serialize(head: head(404, "text/plain"), body: ByteBuffer(string: "nope")) } throws: {
            let error = $0 as? ResponseSerializationError
            return error?.code == .unacceptableStatusCode && error?.code.afNetworkingCode == -1011
                && (error?.value as? ByteBuffer)?.readableString == "nope"
        }
        // A member that accepts the status still wins over the fallback.
        var lenient = JSONResponseSerializer()
        lenient.acceptableStatusCodes = [404]
        var withLenient = CompoundResponseSerializer()
        withLenient.append(lenient)
        #expect(try withLenient.serialize(head: head(404, "application/json"), body: ByteBuffer(string: "[2]")) as? JSONValue == [2])
        // The compound's own settings apply to the fallback only.
        var typed = CompoundResponseSerializer()
        typed.append(JSONResponseSerializer())
        typed.acceptableContentTypes = ["application/json"]
        #expect { try typed.serialize(head: head(200, "image/png"), body: ByteBuffer(string: "x")) } throws: {
            ($0 as? ResponseSerializationError)?.code == .unacceptableContentType
        }
        typed.acceptableStatusCodes = nil
        typed.acceptableContentTypes = nil
        #expect((try typed.serialize(head: head(500, "image/png"), body: ByteBuffer(string: "y")) as? ByteBuffer)?.readableString == "y")
        // An empty compound is AFHTTPResponseSerializer.
        #expect((try CompoundResponseSerializer().serialize(head: head(204, nil), body: ByteBuffer()) as? ByteBuffer)?.readableBytes == 0)
    }

    @Test("a session calls the compound's own serialize (a protocol requirement), so the fallback reaches the caller")
    func throughTheProtocol() throws {
        func run<S: ResponseSerializer>(_ serializer: S) throws -> S.Value { try serializer.serialize(head: head(200, "text/plain"), body: ByteBuffer(string: "z")) }
        var compound = CompoundResponseSerializer()
        compound.append(JSONResponseSerializer())
        #expect((try run(compound) as? ByteBuffer)?.readableString == "z")
    }
}
