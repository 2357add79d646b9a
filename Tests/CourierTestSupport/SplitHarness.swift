// The one helper every parser test goes through (design §2, h11's test_io.py): the same input is
// fed whole, one byte at a time, at every two-way split, and followed by trailing bytes, and the
// outcomes must be identical. A parser whose answer depends on how the network cut its input is
// wrong, whatever the answer.

/// Ways of cutting an input into consecutive chunks.
public enum Chunking: Sendable, CustomStringConvertible, Hashable {
    /// The whole input at once.
    case whole
    /// One byte per chunk.
    case byteByByte
    /// Two chunks, cut before byte `at`.
    case split(at: Int)

    /// Cuts `input` accordingly.
    public func chunks(of input: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole: return [input]
        case .byteByByte: return input.map { [$0] }
        case .split(let at): return [Array(input[..<at]), Array(input[at...])]
        }
    }

    /// Names the cut, for failure messages.
    public var description: String {
        switch self {
        case .whole: return "whole"
        case .byteByByte: return "byte by byte"
        case .split(let at): return "split at \(at)"
        }
    }

    /// Every cut the harness tries for an input of `count` bytes.
    public static func all(count: Int) -> [Chunking] {
        [.whole, .byteByByte] + (count > 1 ? (1..<count).map { .split(at: $0) } : [])
    }
}

/// A difference found by `SplitHarness`.
public struct SplitMismatch<Outcome>: CustomStringConvertible {
    /// The cut that disagreed.
    public var chunking: Chunking
    /// Whether the trailing bytes were appended.
    public var withTrailingBytes: Bool
    /// What that cut produced.
    public var outcome: Outcome
    /// What the whole input produced.
    public var expected: Outcome

    /// A readable report.
    public var description: String {
        "\(chunking)\(withTrailingBytes ? " with trailing bytes" : ""): got \(outcome), expected \(expected)"
    }
}

/// Runs a parser over every cut of an input and reports cuts whose outcome differs.
public enum SplitHarness {
    /// Feeds `input` (and `input + trailing`) in every chunking to `feed`, which must run a fresh
    /// parser over the chunks in order and describe everything it produced as an `Outcome`.
    ///
    /// - Parameters:
    ///   - input: the message.
    ///   - trailing: bytes that follow the message (the start of another, or garbage); the outcome
    ///     of `input + trailing` is compared across cuts too, and with `expectedWithTrailing` when
    ///     given.
    ///   - expectedWithTrailing: what the parser must produce for `input + trailing` (for most
    ///     parsers, the same as for `input`, with the trailing bytes left unconsumed).
    ///   - feed: runs a fresh parser over the chunks.
    /// - Returns: the outcome of the whole input, and every mismatch found (empty when consistent).
    public static func run<Outcome: Equatable>(
        _ input: [UInt8],
        trailing: [UInt8] = [],
        expectedWithTrailing: Outcome? = nil,
        feed: ([[UInt8]]) -> Outcome
    ) -> (outcome: Outcome, mismatches: [SplitMismatch<Outcome>]) {
        let expected = feed([input])
        var mismatches: [SplitMismatch<Outcome>] = []
        for chunking in Chunking.all(count: input.count) {
            let outcome = feed(chunking.chunks(of: input))
            if outcome != expected {
                mismatches.append(SplitMismatch(chunking: chunking, withTrailingBytes: false, outcome: outcome, expected: expected))
            }
        }
        if !trailing.isEmpty {
            let full = input + trailing
            let expectedTrailing = expectedWithTrailing ?? feed([full])
            for chunking in Chunking.all(count: full.count) {
                let outcome = feed(chunking.chunks(of: full))
                if outcome != expectedTrailing {
                    mismatches.append(SplitMismatch(chunking: chunking, withTrailingBytes: true, outcome: outcome, expected: expectedTrailing))
                }
            }
        }
        return (expected, mismatches)
    }
}

extension Array where Element == UInt8 {
    /// The UTF-8 bytes of `string`, for writing test inputs as text.
    public init(ascii string: String) { self = Array(string.utf8) }
}
