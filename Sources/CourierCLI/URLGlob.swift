// URLGlob: curl's URL globbing (curl 7.88's tool_urlglob.c, read and rewritten from its rules):
//
//   {a,b,c}       a set: each element in turn ("\" escapes a character; empty elements allowed,
//                 an empty set "{}" is not)
//   [1-100]       a numeric range; [001-100] pads to the first number's digit count when it starts
//                 with 0; [0-100:10] steps by 10
//   [a-z]         a letter range (at most 26 letters apart), with the same ":step"
//   \[ \] \{ \}   a literal bracket or brace; "[]" and an IPv6 literal "[::1]" are literal too
//
// The patterns multiply: the last one turns fastest (an odometer). `#N` in an -o name is the
// current text of the N-th glob (sets and ranges counted from 1); a `#N` with no N-th glob stays as
// it is. Limits and errors are curl's, with its positions (1-based, pointing at the byte after the
// failing part) and exit code 3: "unmatched brace", "nested brace", "empty string within braces",
// "unexpected close bracket", "unmatched close brace/bracket", "bad range", "bad range
// specification", "range overflow" (more than 2^63 URLs), "too many globs" (100 patterns,
// literal pieces included).
//
// Expansion is lazy: a glob of a billion URLs costs nothing until it is iterated.

/// A glob error, curl's words and position.
struct GlobError: Error, Sendable, Equatable {
    let message: String
    /// 1-based; 0 when curl prints no position.
    let position: Int

    /// curl's error text: the message, then the URL with a caret under the position.
    func text(for url: String) -> String {
        guard position > 0 else { return message }
        return "\(message) in URL position \(position):\n\(url)\n" + String(repeating: " ", count: position - 1) + "^"
    }
}

/// A parsed URL glob: its patterns, and the number of URLs it makes.
struct URLGlob: Sendable {
    enum Pattern: Sendable, Equatable {
        case literal(String)
        case set([String])
        case letters(first: UInt8, last: UInt8, step: Int)
        case numbers(first: UInt64, last: UInt64, step: UInt64, padding: Int)

        /// How many values the pattern takes.
        var count: UInt64 {
            switch self {
            case .literal: return 1
            case .set(let elements): return UInt64(elements.count)
            case .letters(let first, let last, let step): return UInt64((Int(last) - Int(first)) / step + 1)
            case .numbers(let first, let last, let step, _): return (last - first) / step + 1
            }
        }

        func text(at index: UInt64) -> String {
            switch self {
            case .literal(let text): return text
            case .set(let elements): return elements[Int(index)]
            case .letters(let first, _, let step): return String(UnicodeScalar(UInt8(Int(first) + Int(index) * step)))
            case .numbers(let first, _, let step, let padding):
                let digits = String(first + index * step)
                return digits.count < padding ? String(repeating: "0", count: padding - digits.count) + digits : digits
            }
        }

        var isGlob: Bool {
            if case .literal = self { return false }
            return true
        }
    }

    /// The patterns in URL order (literal pieces included).
    let patterns: [Pattern]
    /// How many URLs the glob makes.
    let count: UInt64

    /// curl's limit on patterns (literal pieces included) in one URL.
    static let maximumPatterns = 100

    /// A glob that is the text as it is (-g).
    init(literal text: String) {
        patterns = [.literal(text)]
        count = 1
    }

    /// Parses `text` by curl's rules.
    /// - Throws: `GlobError`.
    init(parsing text: String) throws(GlobError) {
        let bytes = Array(text.utf8)
        var patterns: [Pattern] = []
        var amount: UInt64 = 1
        var index = 0
        var position = 1
        var literal: [UInt8] = []

        func add(_ pattern: Pattern) throws(GlobError) {
            patterns.append(pattern)
            if patterns.count >= URLGlob.maximumPatterns { throw GlobError(message: "too many globs", position: position) }
        }
        func multiply(by factor: UInt64, position: Int) throws(GlobError) {
            let (product, overflow) = amount.multipliedReportingOverflow(by: factor)
            guard !overflow, product <= UInt64(Int64.max) else { throw GlobError(message: "range overflow", position: position) }
            amount = product
        }

        while index < bytes.count {
            // A literal piece, up to the next "{" or a "[" that opens a range.
            literal.removeAll(keepingCapacity: true)
            while index < bytes.count && bytes[index] != UInt8(ascii: "{") {
                let byte = bytes[index]
                if byte == UInt8(ascii: "[") {
                    let skip = URLGlob.literalBracketLength(bytes, at: index)
                    if skip > 0 {
                        literal += bytes[index..<(index + skip)]
                        index += skip
                        position += skip
                        continue
                    }
                    break
                }
                if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    throw GlobError(message: "unmatched close brace/bracket", position: position)
                }
                if byte == UInt8(ascii: "\\") && index + 1 < bytes.count
                    && [UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index + 1]) {
                    index += 1
                    position += 1
                }
                literal.append(bytes[index])
                index += 1
                position += 1
            }
            if !literal.isEmpty {
                try add(.literal(String(decoding: literal, as: UTF8.self)))
                continue
            }
            guard index < bytes.count else { break }
            let opener = bytes[index]
            index += 1
            position += 1
            let pattern: Pattern
            if opener == UInt8(ascii: "{") {
                pattern = try URLGlob.parseSet(bytes, &index, &position)
                try multiply(by: pattern.count, position: 0)
            } else {
                pattern = try URLGlob.parseRange(bytes, &index, &position)
                try multiply(by: pattern.count, position: position)
            }
            try add(pattern)
        }
        self.patterns = patterns
        self.count = amount
    }

    /// The length of a "[" that is not a range: "[]", or an IPv6 literal ("[::1]", "[fe80::1%25eth0]")
    /// as curl's peek_ipv6 recognises it; 0 otherwise.
    private static func literalBracketLength(_ bytes: [UInt8], at index: Int) -> Int {
        guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "]")) else { return 0 }
        if close == index + 1 { return 2 }
        let inside = bytes[(index + 1)..<close]
        // Globs have a "-" and at most one ":"; IPv6 literals no "-" and two ":" or more.
        guard close - index + 1 < 128, !inside.contains(UInt8(ascii: "-")), inside.filter({ $0 == UInt8(ascii: ":") }).count >= 2,
              inside.allSatisfy({ ASCII.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "%")
                                  || ASCII.isAlphanumeric($0) }) else { return 0 }
        return close - index + 1
    }

    /// A set after "{": elements split at ",", up to "}".
    private static func parseSet(_ bytes: [UInt8], _ index: inout Int, _ position: inout Int) throws(GlobError) -> Pattern {
        let opening = position - 1
        let start = index
        var elements: [String] = []
        var element: [UInt8] = []
        while true {
            guard index < bytes.count else { throw GlobError(message: "unmatched brace", position: opening) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                throw GlobError(message: "nested brace", position: position)
            case UInt8(ascii: "}"):
                if index == start { throw GlobError(message: "empty string within braces", position: position) }
                elements.append(String(decoding: element, as: UTF8.self))
                index += 1
                return .set(elements)
            case UInt8(ascii: ","):
                elements.append(String(decoding: element, as: UTF8.self))
                element.removeAll(keepingCapacity: true)
                index += 1
                position += 1
            case UInt8(ascii: "]"):
                throw GlobError(message: "unexpected close bracket", position: position)
            default:
                if byte == UInt8(ascii: "\\") && index + 1 < bytes.count {
                    index += 1
                    position += 1
                }
                element.append(bytes[index])
                index += 1
                position += 1
            }
        }
    }

    /// A range after "[": "a-z]", "1-10]", "001-100]", with an optional ":STEP" before "]".
    private static func parseRange(_ bytes: [UInt8], _ index: inout Int, _ position: inout Int) throws(GlobError) -> Pattern {
        let start = index
        func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }
        if ASCII.isLetter(byte(index)) {
            // "%c-%c%c": three characters around a "-" (any bytes, as sscanf reads them).
            var wellFormed = false
            var step = 1
            let first = byte(index), last = byte(index + 2)
            if index + 3 < bytes.count && byte(index + 1) == UInt8(ascii: "-") {
                let end = byte(index + 3)
                if end == UInt8(ascii: ":") {
                    var cursor = index + 4
                    let digits = cursor
                    var value = 0
                    while ASCII.isDigit(byte(cursor)) && value <= Int(Int32.max) {
                        value = value * 10 + Int(byte(cursor) - UInt8(ascii: "0"))
                        cursor += 1
                    }
                    if cursor > digits && byte(cursor) == UInt8(ascii: "]") && value <= Int(Int32.max) {
                        step = value
                        index = cursor + 1
                    } else {
                        step = 0
                    }
                    wellFormed = true
                } else if end == UInt8(ascii: "]") {
                    index += 4
                    wellFormed = true
                }
            }
            position += index - start
            let span = Int(last) - Int(first)
            guard wellFormed, step > 0, (first == last && step == 1) || (first != last && first < last && step <= span && span <= 25) else {
                throw GlobError(message: "bad range", position: position)
            }
            return .letters(first: first, last: last, step: step)
        }
        guard ASCII.isDigit(byte(index)) else {
            throw GlobError(message: "bad range specification", position: position)
        }
        var padding = 0
        if byte(index) == UInt8(ascii: "0") {
            var cursor = index
            while ASCII.isDigit(byte(cursor)) { cursor += 1; padding += 1 }
        }
        // strtoul: the digits at `cursor` (0 and no move when there are none); nil on overflow.
        func number(_ cursor: inout Int) -> UInt64? {
            var value: UInt64 = 0
            while ASCII.isDigit(byte(cursor)) {
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(UInt64(byte(cursor) - UInt8(ascii: "0")))
                if o1 || o2 { return nil }
                value = sum
                cursor += 1
            }
            return value
        }
        // As curl reads it: `index` moves past what was understood, which sets the position.
        var cursor = index
        var valid = false
        var first: UInt64 = 0, last: UInt64 = 0, step: UInt64 = 0
        if let low = number(&cursor), byte(cursor) == UInt8(ascii: "-") {
            first = low
            index = cursor + 1
            while byte(index) == UInt8(ascii: " ") || byte(index) == UInt8(ascii: "\t") { index += 1 }
            if ASCII.isDigit(byte(index)) {
                cursor = index
                if let high = number(&cursor) {
                    last = high
                    var parsed = true
                    if byte(cursor) == UInt8(ascii: ":") {
                        index = cursor + 1
                        cursor = index
                        if let s = number(&cursor) { step = s } else { parsed = false }
                    } else {
                        step = 1
                    }
                    if parsed && byte(cursor) == UInt8(ascii: "]") {
                        index = cursor + 1
                        valid = true
                    }
                }
            }
        }
        position += index - start
        guard valid, step > 0, (first == last && step == 1) || (first != last && first < last && step <= last - first) else {
            throw GlobError(message: "bad range", position: position)
        }
        return .numbers(first: first, last: last, step: step, padding: padding)
    }

    /// The URLs, in curl's order (the last pattern turns fastest), each with its glob values.
    func makeIterator() -> Iterator { Iterator(glob: self) }

    /// One expansion: the URL, and the text of each glob (for #N).
    struct Expansion: Sendable {
        let url: String
        let values: [String]

        /// `name` with each `#N` replaced by the N-th glob's text (N from 1); others stay.
        func substituting(into name: String) -> String {
            guard name.utf8.contains(UInt8(ascii: "#")) else { return name }
            let bytes = Array(name.utf8)
            var out: [UInt8] = []
            var i = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#"), i + 1 < bytes.count, ASCII.isDigit(bytes[i + 1]) {
                    var j = i + 1
                    var n = 0
                    while j < bytes.count, ASCII.isDigit(bytes[j]), n < 1_000_000 {
                        n = n * 10 + Int(bytes[j] - UInt8(ascii: "0"))
                        j += 1
                    }
                    if n >= 1 && n <= values.count {
                        out += Array(values[n - 1].utf8)
                        i = j
                        continue
                    }
                }
                out.append(bytes[i])
                i += 1
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    struct Iterator: IteratorProtocol, Sendable {
        let glob: URLGlob
        private var indexes: [UInt64]
        private var done = false

        init(glob: URLGlob) {
            self.glob = glob
            indexes = Array(repeating: 0, count: glob.patterns.count)
        }

        mutating func next() -> Expansion? {
            guard !done else { return nil }
            var url = ""
            var values: [String] = []
            for (position, pattern) in glob.patterns.enumerated() {
                let text = pattern.text(at: indexes[position])
                url += text
                if pattern.isGlob { values.append(text) }
            }
            // Advance the odometer: the last pattern fastest.
            var carry = true
            var position = glob.patterns.count - 1
            while carry && position >= 0 {
                indexes[position] += 1
                if indexes[position] == glob.patterns[position].count {
                    indexes[position] = 0
                    position -= 1
                } else {
                    carry = false
                }
            }
            if carry { done = true }
            return Expansion(url: url, values: values)
        }
    }
}

/// Byte classes of ASCII, for the command line's small parsers.
enum ASCII {
    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- UInt8(ascii: "a") < 26 }
    static func isAlphanumeric(_ byte: UInt8) -> Bool { isDigit(byte) || isLetter(byte) }
    static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (byte | 0x20) &- UInt8(ascii: "a") < 6 }
}
