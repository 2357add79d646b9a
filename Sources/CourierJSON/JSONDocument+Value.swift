// JSONDocument.Value: a view of one value of a document — the document (retained) and a tape
// index. Nothing is copied until a `String`, a `JSONNumber` or a `JSONValue` is asked for.

import CourierBytes

extension JSONDocument {
    /// The kind of a JSON value.
    public enum Kind: Sendable, Hashable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool
        /// A number.
        case number
        /// A string.
        case string
        /// An array.
        case array
        /// An object.
        case object
    }

    /// A value of a document: cheap to copy (a reference to the document and a position).
    public struct Value: Sendable {
        /// The document the value belongs to.
        public let document: JSONDocument
        let index: Int

        init(document: JSONDocument, index: Int) {
            self.document = document
            self.index = index
        }

        @inline(__always)
        var word: UInt32 { document.storage.tape[index] }

        @inline(__always)
        func withReader<R>(_ body: (JSONTapeReader) -> R) -> R {
            document.input.withBytes { (base, count) -> R in
                body(JSONTapeReader(base: base, count: count, storage: document.storage))
            }
        }

        /// What kind of value this is.
        public var kind: Kind {
            let word = self.word
            switch JSONTape.tag(word) {
            case JSONTape.literal: return word == JSONTape.null ? .null : .bool
            case JSONTape.number, JSONTape.integer: return .number
            case JSONTape.string, JSONTape.escaped: return .string
            case JSONTape.array: return .array
            default: return .object
            }
        }

        /// Whether this is `null`.
        public var isNull: Bool { word == JSONTape.null }

        /// The Boolean, when this is `true` or `false`.
        public var bool: Bool? {
            let word = self.word
            return JSONTape.tag(word) == JSONTape.literal && word != JSONTape.null ? word == JSONTape.trueWord : nil
        }

        /// The number (its exact text), when this is a number.
        public var number: JSONNumber? {
            let word = self.word
            let tag = JSONTape.tag(word)
            guard tag == JSONTape.number || tag == JSONTape.integer else { return nil }
            return withReader { $0.number(word) }
        }

        /// The string, when this is a string.
        public var string: String? {
            let word = self.word
            let tag = JSONTape.tag(word)
            guard tag == JSONTape.string || tag == JSONTape.escaped else { return nil }
            return withReader { $0.string(word) }
        }

        /// The value as `Int`, when it is a number that is exactly an integer in range.
        public var int: Int? {
            let word = self.word
            if JSONTape.tag(word) == JSONTape.integer { return JSONTape.payload(word) }
            return number?.integer(as: Int.self)
        }

        /// The value as the nearest `Double`, when it is a number within `Double`'s range.
        public var double: Double? { number?.double }

        /// The number of elements (array) or members (object); nil for other values.
        public var count: Int? {
            let tag = JSONTape.tag(word)
            guard tag == JSONTape.array || tag == JSONTape.object else { return nil }
            return withReader { $0.childCount(index) }
        }

        /// The value of the member named `key`, when this is an object that has one. (Names in a
        /// document are unique: the last member of a repeated name is the one kept.)
        /// - Parameter key: the member name.
        public subscript(key: String) -> Value? {
            guard JSONTape.tag(word) == JSONTape.object else { return nil }
            var key = key
            let found = key.withUTF8 { name in withReader { $0.member(index, named: name) } }
            return found.map { Value(document: document, index: $0) }
        }

        /// The element at `position`, when this is an array and `position` is in range.
        /// - Parameter position: a zero-based position (found by skipping the elements before it).
        public subscript(position: Int) -> Value? {
            let word = self.word
            guard JSONTape.tag(word) == JSONTape.array, position >= 0 else { return nil }
            let end = JSONTape.payload(word)
            return withReader { reader -> Value? in
                var i = index &+ 1
                var n = 0
                while i < end {
                    if n == position { return Value(document: document, index: i) }
                    n &+= 1
                    i = reader.after(i)
                }
                return nil
            }
        }

        /// The elements in order, when this is an array (empty otherwise).
        public var elements: Elements { Elements(value: self) }

        /// The members in order, when this is an object (empty otherwise).
        public var members: Members { Members(value: self) }
    }

    /// The elements of an array value, in order.
    public struct Elements: Sequence, Sendable {
        let value: Value

        /// An iterator over the elements.
        public struct Iterator: IteratorProtocol {
            let document: JSONDocument
            var position: Int
            let end: Int

            /// The next element.
            public mutating func next() -> Value? {
                guard position < end else { return nil }
                let current = position
                let word = document.storage.tape[current]
                position = JSONTape.tag(word) >= JSONTape.array ? JSONTape.payload(word) : current &+ 1
                return Value(document: document, index: current)
            }
        }

        /// Iterates the elements.
        public func makeIterator() -> Iterator {
            let word = value.word
            let isArray = JSONTape.tag(word) == JSONTape.array
            return Iterator(document: value.document, position: value.index &+ 1, end: isArray ? JSONTape.payload(word) : 0)
        }
    }

    /// The members of an object value, in order.
    public struct Members: Sequence, Sendable {
        let value: Value

        /// One member: its name and a view of its value.
        public struct Member: Sendable {
            /// The member name.
            public var key: String
            /// The member value.
            public var value: Value
        }

        /// An iterator over the members.
        public struct Iterator: IteratorProtocol {
            let document: JSONDocument
            var position: Int
            let end: Int

            /// The next member.
            public mutating func next() -> Member? {
                let tape = document.storage.tape
                // SAFETY: indices below `end` are words of this object.
                while position < end && JSONTape.tag(tape[position]) == JSONTape.removed { position &+= JSONTape.payload(tape[position]) }
                guard position < end else { return nil }
                let nameWord = tape[position]
                let valueIndex = position &+ 1
                let valueWord = tape[valueIndex]
                position = JSONTape.tag(valueWord) >= JSONTape.array ? JSONTape.payload(valueWord) : valueIndex &+ 1
                let key = document.input.withBytes { (base, count) in
                    JSONTapeReader(base: base, count: count, storage: document.storage).string(nameWord)
                }
                return Member(key: key, value: Value(document: document, index: valueIndex))
            }
        }

        /// Iterates the members.
        public func makeIterator() -> Iterator {
            let word = value.word
            let isObject = JSONTape.tag(word) == JSONTape.object
            return Iterator(document: value.document, position: value.index &+ 1, end: isObject ? JSONTape.payload(word) : 0)
        }
    }
}

extension JSONValue {
    /// The owned tree of a document value (built without recursion).
    /// - Parameter value: a value of a document.
    public init(_ value: JSONDocument.Value) {
        self = value.withReader { $0.jsonValue(at: value.index) }
    }
}

extension JSONDocument: CustomStringConvertible {
    /// The compact JSON text of the document.
    public var description: String { JSONWriter.string(root) }
}
