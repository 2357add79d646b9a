// HTTPHeaders as a Codable value (issue 16: serializer settings and session configurations are
// Codable): an array of [name, value] pairs, so order and repeated fields survive a round trip
// (a JSON object would lose both).

extension HTTPHeaders: Codable {
    /// Decodes `[["Name", "value"], …]`, in order.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError.dataCorrupted` for an entry that is not exactly two strings.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var fields: [(String, String)] = []
        while !container.isAtEnd {
            let pair = try container.decode([String].self)
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a header field is [name, value], got \(pair.count) strings")
            }
            fields.append((pair[0], pair[1]))
        }
        self.init(fields)
    }

    /// Encodes `[["Name", "value"], …]`, in order, duplicates kept.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for field in fields { try container.encode([field.name, field.value]) }
    }
}
