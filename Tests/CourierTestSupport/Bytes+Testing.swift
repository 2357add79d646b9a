// Small conveniences for tests.

/// Writes `\r\n` line endings for a test input given with `\n` lines, so inputs read like messages.
/// - Parameter text: lines separated by "\n".
/// - Returns: the bytes with every "\n" turned into "\r\n".
public func crlf(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    for byte in text.utf8 {
        if byte == UInt8(ascii: "\n") { out.append(UInt8(ascii: "\r")) }
        out.append(byte)
    }
    return out
}
