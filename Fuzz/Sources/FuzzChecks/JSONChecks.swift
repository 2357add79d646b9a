// Checks for CourierJSON: no trap on any input; parse → compact write → parse is identical; the
// byte-to-byte null sanitizer and the tree sanitizer agree (same bytes, or the same error at the
// same offset); sanitizing twice changes nothing.
import CourierJSON

extension FuzzChecks {
    public static func json(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let parsed = Result { () throws(JSONError) in try JSONParser().parse(bytes) }
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
