// Key conversion for the Codable bridge: the snake-case strategies of Foundation's JSONEncoder
// and JSONDecoder, re-implemented without Foundation with the same word-splitting rules, so keys
// convert exactly as they do with Foundation:
//
//   to snake case   : split before an uppercase letter that follows a non-uppercase one, and
//                     before the last capital of a run of capitals followed by a lowercase letter
//                     (myURLProperty → my_url_property); lowercase each word; join with "_".
//                     The first character never starts a new word.
//   from snake case : leading and trailing underscores kept; the rest split on "_" (empty pieces
//                     dropped); the first piece lowercased, the others capitalised (first
//                     letter of each whitespace-separated word upper, the rest lower) and joined;
//                     a key with no inner underscore is left as it is (it may be camel case).
//
// "Uppercase" and "lowercase" are Foundation's CharacterSet.uppercaseLetters (Unicode general
// categories Lu and Lt) and lowercaseLetters (Ll), tested on the first scalar of each character,
// and positions move by whole characters, so combining marks stay with their letter.

/// A `CodingKey` for arbitrary strings and array indices.
public struct JSONCodingKey: CodingKey, Sendable, Hashable {
    /// The string form.
    public var stringValue: String
    /// The integer form, for array indices.
    public var intValue: Int?

    /// Creates a key from a member name.
    /// - Parameter stringValue: the name.
    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    /// Creates a key for an array index (`"Index 3"`, as Foundation names them).
    /// - Parameter intValue: the index.
    public init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// Creates a key from a member name.
    /// - Parameter string: the name.
    public init(_ string: String) { self.init(stringValue: string) }

    /// The key Foundation uses for `superEncoder()` and `superDecoder()`.
    public static let `super` = JSONCodingKey(stringValue: "super")
}

enum JSONKeyConversion {
    private static func isUppercase(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .titlecaseLetter: return true
        default: return false
        }
    }

    private static func isLowercase(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        return scalar.properties.generalCategory == .lowercaseLetter
    }

    /// camelCase → snake_case, Foundation's `convertToSnakeCase`.
    static func toSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upper = key[searchRange].firstIndex(where: isUppercase) {
            words.append(wordStart..<upper)
            searchRange = upper..<searchRange.upperBound
            guard let lower = key[searchRange].firstIndex(where: isLowercase) else {
                wordStart = searchRange.lowerBound
                break
            }
            let afterCapital = key.index(after: upper)
            if lower == afterCapital {
                // One capital then lowercase: the capital starts the next word.
                wordStart = upper
            } else {
                // A run of capitals: all but the last form a word (the acronym).
                let beforeLower = key.index(before: lower)
                words.append(upper..<beforeLower)
                wordStart = beforeLower
            }
            searchRange = lower..<searchRange.upperBound
        }
        words.append(wordStart..<searchRange.upperBound)
        return words.map { key[$0].lowercased() }.joined(separator: "_")
    }

    /// snake_case → camelCase, Foundation's `convertFromSnakeCase`.
    static func fromSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        guard let firstNonUnderscore = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastNonUnderscore = key.index(before: key.endIndex)
        while lastNonUnderscore > firstNonUnderscore && key[lastNonUnderscore] == "_" {
            key.formIndex(before: &lastNonUnderscore)
        }
        let core = key[firstNonUnderscore...lastNonUnderscore]
        let leading = key[key.startIndex..<firstNonUnderscore]
        let trailing = key[key.index(after: lastNonUnderscore)...]
        let components = core.split(separator: "_")
        let joined: String
        if components.count == 1 {
            joined = String(core)
        } else {
            joined = components[0].lowercased() + components.dropFirst().map(capitalized).joined()
        }
        return leading + joined + trailing
    }

    /// Foundation's `capitalized`: the first letter of each whitespace-separated word uppercased,
    /// every other letter lowercased.
    private static func capitalized(_ word: Substring) -> String {
        var result = ""
        var atWordStart = true
        for character in word {
            if character.isWhitespace {
                result.append(character)
                atWordStart = true
            } else if atWordStart {
                result += character.uppercased()
                atWordStart = false
            } else {
                result += character.lowercased()
            }
        }
        return result
    }
}
