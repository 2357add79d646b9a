import CourierBytes
import CourierHTTP1
import Testing
@testable import Courier

private func events(_ text: String, limits: XMLParser.Limits = XMLParser.Limits()) throws(XMLError) -> [XMLEvent] {
    try XMLParser(limits: limits).events(Array(text.utf8))
}

private func failure(_ text: String, limits: XMLParser.Limits = XMLParser.Limits()) -> XMLError? {
    do { _ = try events(text, limits: limits); return nil } catch { return error }
}

@Suite struct XMLParserTests {
    @Test func eventsForASmallDocument() throws {
        let doc = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- c --><!DOCTYPE r SYSTEM "r.dtd">
        <r a="1" b='x &amp; &#65;&#x42;'><e/>t&lt;&gt;&quot;&apos;<![CDATA[<raw>&amp;]]><?pi data?></r>
        <!-- trailing -->
        """
        #expect(try events(doc) == [
            .startElement(name: "r", attributes: [XMLAttribute(name: "a", value: "1"), XMLAttribute(name: "b", value: "x & AB")]),
            .startElement(name: "e", attributes: []),
            .endElement(name: "e"),
            .text("t<>\"'<raw>&amp;"),
            .endElement(name: "r"),
        ])
    }

    @Test func treeAndAttributeNormalisation() throws {
        let root = try XMLElement.parse(Array("<a x=\"1\n2\t3\"> <b>hi</b>é<c:d/></a>".utf8))
        #expect(root.name == "a")
        #expect(root[attribute: "x"] == "1 2 3")
        #expect(root.elements.map(\.name) == ["b", "c:d"])
        #expect(root.elements[0].text == "hi")
        #expect(root.text == " é")
    }

    @Test func characterReferences() throws {
        #expect(try events("<a>&#x1F600;&#233;</a>")[1] == .text("😀é"))
        for bad in ["<a>&#0;</a>", "<a>&#xD800;</a>", "<a>&#x110000;</a>", "<a>&#xFFFE;</a>", "<a>&#;</a>", "<a>&#x;</a>", "<a>&#12a;</a>", "<a>&#99999999999;</a>"] {
            #expect(failure(bad)?.code == .invalidReference, "\(bad)")
        }
        #expect(failure("<a>&nbsp;</a>") == XMLError(.undefinedEntity, offset: 3))
        #expect(failure("<a>&;</a>")?.code == .invalidReference)
        #expect(failure("<a>& b</a>")?.code == .invalidReference)
    }

    @Test func wellFormedness() {
        let cases: [(String, XMLError.Code, Int)] = [
            ("<a></b>", .mismatchedTag, 3),
            ("<a><b></a></b>", .mismatchedTag, 6),
            ("<a>", .unexpectedEndOfInput, 3),
            ("", .noRootElement, 0),
            ("  <!-- only -->", .noRootElement, 15),
            ("<a/><b/>", .multipleRootElements, 4),
            ("text<a/>", .textOutsideRoot, 0),
            ("<a/>text", .textOutsideRoot, 4),
            ("<a/><![CDATA[x]]>", .textOutsideRoot, 4),
            ("</a>", .mismatchedTag, 0),
            ("<a b='1' b='2'/>", .duplicateAttribute, 9),
            ("<a b=1/>", .unexpectedByte, 5),
            ("<a b='<'/>", .unexpectedByte, 6),
            ("<a b='1'c='2'/>", .unexpectedByte, 8),
            ("<1a/>", .invalidName, 1),
            ("<a><!-- x -- y --></a>", .invalidComment, 10),
            ("<a>]]></a>", .cdataEndInText, 3),
            ("<a/><?xml version='1.0'?>", .misplacedXMLDeclaration, 4),
            (" <?xml version='1.0'?><a/>", .misplacedXMLDeclaration, 1),
            ("<a>\u{1}</a>", .invalidCharacter, 3),
            ("<a><!ELEMENT x></a>", .unexpectedByte, 4),
            ("<a/><!DOCTYPE a>", .doctypeNotAllowed, 4),
            ("<!DOCTYPE a><!DOCTYPE a><a/>", .doctypeNotAllowed, 12),
        ]
        for (input, code, offset) in cases {
            #expect(failure(input) == XMLError(code, offset: offset), "\(input)")
        }
    }

    @Test func invalidUTF8IsRejected() {
        do { _ = try XMLParser().events([0x3C, 0x61, 0x3E, 0xC3, 0x28, 0x3C, 0x2F, 0x61, 0x3E]); Issue.record("accepted") } catch {
            #expect(error == XMLError(.invalidUTF8, offset: 3))
        }
    }

    @Test func billionLaughsDoctypeIsRejected() {
        let laughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
          <!ENTITY lol "lol">
          <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
          <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
        ]>
        <lolz>&lol3;</lolz>
        """
        #expect(failure(laughs)?.code == .doctypeNotAllowed)
        let external = "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>"
        #expect(failure(external)?.code == .doctypeNotAllowed)
        // Without an internal subset the entity is simply undefined.
        #expect(failure("<!DOCTYPE r SYSTEM \"x[.dtd\"><r>&x;</r>")?.code == .undefinedEntity)
    }

    @Test func depthAndAttributeLimits() throws {
        let deep = String(repeating: "<a>", count: 256) + String(repeating: "</a>", count: 256)
        #expect(try events(deep).count == 512)
        let tooDeep = String(repeating: "<a>", count: 257) + String(repeating: "</a>", count: 257)
        #expect(failure(tooDeep) == XMLError(.depthLimitExceeded, offset: 256 * 3))
        let hostile = String(repeating: "<a>", count: 1_000_000)
        #expect(failure(hostile)?.code == .depthLimitExceeded)
        #expect(failure("<a x='1' y='2' z='3'/>", limits: XMLParser.Limits(maxAttributes: 2)) == XMLError(.attributeLimitExceeded, offset: 15))
    }

    @Test func everyPrefixOfADocumentFailsCleanly() {
        let doc = "<?xml version=\"1.0\"?><r a=\"&amp;\"><b>x&#65;</b><![CDATA[y]]><!--c--></r>"
        let bytes = Array(doc.utf8)
        #expect(throws: Never.self) { try XMLParser().events(bytes) }
        for length in 0..<bytes.count {
            #expect(throws: XMLError.self) { try XMLParser().events(Array(bytes[0..<length])) }
        }
    }

    @Test func responseSerializer() throws {
        let serializer = XMLResponseSerializer()
        let head = HTTPResponseHead(status: 200, headers: ["Content-Type": "text/xml; charset=utf-8"])
        #expect(try serializer.serialize(head: head, body: ByteBuffer(string: "<a>1</a>"))?.text == "1")
        #expect(try serializer.serialize(head: head, body: ByteBuffer()) == nil)
        #expect { try serializer.serialize(head: head, body: ByteBuffer(string: "<a>")) } throws: {
            let error = $0 as? ResponseSerializationError
            return error?.code == .invalidXML && error?.offset == 3 && (error?.detail as? XMLError)?.code == .unexpectedEndOfInput
        }
        #expect { try serializer.serialize(head: HTTPResponseHead(status: 200, headers: ["Content-Type": "application/json"]), body: ByteBuffer(string: "<a/>")) } throws: {
            ($0 as? ResponseSerializationError)?.code == .unacceptableContentType
        }
    }
}
