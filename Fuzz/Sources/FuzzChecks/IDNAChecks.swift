// Checks for CourierURL's UTS #46 conversion (IDNA.swift): arbitrary text never traps; a name that
// converts gives a DNS-shaped ASCII form that converts to itself and decodes back to a name that
// converts to it again; ToASCII and ToUnicode agree on validity; an error names a label and an
// offset inside the input; an http host shown in Unicode parses back to the same host; NFC is
// idempotent and agrees with the standard library's normaliser on scalars both know.
import CourierURL
@_spi(Fuzzing) import CourierURL

extension FuzzChecks {
    public static func idna(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let inputLength = text.utf8.count
        let unicode = IDNA.toUnicode(text)
        do {
            let ascii = try IDNA.toASCII(text)
            require(unicode.error == nil, "ToASCII accepted what ToUnicode refused: \(unicode.error!)")
            let bytes = Array(ascii.utf8)
            require(bytes.allSatisfy { $0 &- 0x61 < 26 || $0 &- 0x30 < 10 || $0 == 0x2D || $0 == 0x2E },
                    "ToASCII output is not lower-case letters, digits, '-' and '.': \(ascii)")
            let labels = ascii.split(separator: ".", omittingEmptySubsequences: false)
            let counted = labels.last?.isEmpty == true && labels.count > 1 ? labels.dropLast() : labels[...]
            require(counted.allSatisfy { !$0.isEmpty && $0.utf8.count <= 63 }, "a label of \(ascii) is empty or over 63 bytes")
            require(counted.map(\.utf8.count).reduce(counted.count - 1, +) <= 253, "\(ascii) is over 253 bytes")
            require((try? IDNA.toASCII(ascii)) == ascii, "ToASCII is not idempotent on \(ascii)")
            let shown = IDNA.toUnicode(ascii)
            require(shown.error == nil, "the ASCII form \(ascii) does not decode: \(shown.error!)")
            require((try? IDNA.toASCII(shown.domain)) == ascii, "\(ascii) → \(shown.domain) does not convert back")
            require(unicode.domain == shown.domain, "ToUnicode of the input and of its ASCII form differ")
        } catch {
            require(error.offset >= 0 && error.offset <= inputLength, "IDNA error offset \(error.offset) outside \(inputLength) bytes")
            require(error.labelIndex >= 0, "negative label index")
            if unicode.error != nil {
                // Both refused (ToUnicode has no length checks, so it may accept what ToASCII refuses).
            } else {
                require([.labelLength, .domainLength, .punycodeOverflow].contains(error.rule),
                        "ToUnicode accepted what ToASCII refused for \(error.rule)")
            }
        }

        // As a URI host: the Unicode display form parses back to the same host.
        if let uri = try? URI(parsing: "http://" + text + "/"), let host = uri.host, host.kind == .registeredName {
            let again = try? URI(parsing: "http://" + host.unicodeDescription + "/")
            require(again?.host == host, "host \(host.text) shown as \(host.unicodeDescription) does not parse back")
        }

        // NFC: idempotent, and the standard library's result for scalars both know (Unicode ≤ 15.0).
        let scalars = Array(text.unicodeScalars.prefix(256))
        let values = scalars.map(\.value)
        let normalized = IDNA.nfc(values)
        require(IDNA.nfc(normalized) == normalized, "NFC is not idempotent")
        if scalars.allSatisfy({ $0.properties.age.map { $0.major <= 15 } ?? false }) {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            let library = String(decoding: String(view)._nfcCodeUnits, as: UTF8.self).unicodeScalars.map(\.value)
            require(library == normalized, "NFC differs from the standard library's for \(values.map { String($0, radix: 16) })")
        }
    }
}
