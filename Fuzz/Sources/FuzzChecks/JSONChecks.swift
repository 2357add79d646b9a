// Checks for CourierJSON: no trap on any input; the vector parser (JSONDocument, JSONParser) and
// the scalar reference (JSONReferenceParser) give the same tree or the same error at the same
// offset, with and without null removal; the document's views, its writer and its tree agree;
// parse → compact write → parse is identical; the sanitizer and the tree sanitizer agree (same
// bytes, or the same error at the same offset); sanitizing twice changes nothing.
@_spi(Fuzzing) import CourierJSON

extension FuzzChecks {
    public static func json(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let parsed = Result { () throws(JSONError) in try JSONParser().parse(bytes) }
        let reference = Result { () throws(JSONError) in try JSONReferenceParser().parse(bytes) }
        require(parsed == reference, "vector parser \(parsed) disagrees with the reference \(reference)")
        let referenceSanitized = Result { () throws(JSONError) in try JSONReferenceParser(removesNullValues: true).parse(bytes) }
        let vectorSanitized = Result { () throws(JSONError) in try JSONParser(removesNullValues: true).parse(bytes) }
        require(vectorSanitized == referenceSanitized, "null-removing parsers disagree: \(vectorSanitized) vs \(referenceSanitized)")
        // The tape with null removal (JSONTapeBuilder) against the tree built without a tape.
        let sanitizedDocument = Result { () throws(JSONError) in
            JSONValue(try JSONDocument(parsing: bytes, options: JSONDocument.Options(removesNullValues: true)).root)
        }
        require(sanitizedDocument == vectorSanitized, "null-removing document \(sanitizedDocument) disagrees with the tree \(vectorSanitized)")
        let document = Result { () throws(JSONError) in try JSONDocument(parsing: bytes) }
        switch (document, parsed) {
        case (.success(let document), .success(let value)):
            require(JSONValue(document.root) == value, "document tree differs from the parsed tree")
            require(JSONWriter.write(document.root) == JSONWriter.write(value), "document writer differs from the tree writer")
            require(JSONWriter.write(document.root, options: .prettyPrinted) == JSONWriter.write(value, options: .prettyPrinted),
                    "document pretty writer differs")
            if case .object(let object) = value {
                for member in object.members {
                    require(document.root[member.key].map(JSONValue.init) == member.value, "document lookup of \(member.key) differs")
                }
            }
        case (.failure(let a), .failure(let b)):
            require(a == b, "document error \(a) differs from parser error \(b)")
        default:
            require(false, "document \(document) and parser \(parsed) disagree")
        }
        if case .success(let value) = parsed {
            let written = JSONWriter.write(value)
            let reparsed = Result { () throws(JSONError) in try JSONParser().parse(written) }
            require(reparsed == .success(value), "parse(write(x)) != x for \(written)")
            let pretty = JSONWriter.write(value, options: .prettyPrinted)
            require((try? JSONParser().parse(pretty)) == value, "pretty output does not parse back")
        }

        let streamed = Result { () throws(JSONError) in try JSONNullSanitizer().sanitize(bytes) }
        let tree = Result { () throws(JSONError) in JSONWriter.write(try JSONParser(removesNullValues: true).parse(bytes)) }
        require(streamed == tree, "streaming sanitizer \(streamed) disagrees with tree sanitizer \(tree)")
        if case .success(let once) = streamed {
            require((try? JSONNullSanitizer().sanitize(once)) == once, "sanitizing twice changed the output")
        }
        switch (parsed, streamed) {
        case (.success, .failure(let e)): fatalError("sanitizer rejected a valid document: \(e)")
        case (.failure(let e), .success): fatalError("sanitizer accepted an invalid document (parser: \(e))")
        default: break
        }
    }
}
