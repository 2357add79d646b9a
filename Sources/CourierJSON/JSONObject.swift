// JSONObject: the members of a JSON object, in the order they were read or added.
//
// RFC 8259 §4: "The names within an object SHOULD be unique", and software differs on what a
// duplicate means. Courier keeps every member, in order, so nothing is lost between parse and
// write; lookups by name return the LAST member with that name, which is what JavaScript's
// JSON.parse and Apple's JSONSerialization do.

/// The members of a JSON object, in insertion order, duplicates kept.
public struct JSONObject: Sendable, Hashable {
    /// One name/value pair.
    public struct Member: Sendable, Hashable {
        /// The member name.
        public var key: String
        /// The member value.
        public var value: JSONValue

        /// Creates a member.
        /// - Parameters:
        ///   - key: the name.
        ///   - value: the value.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members, in a box whose `deinit` frees deep trees without recursion (JSONArray.swift).
    @usableFromInline
    final class Storage: @unchecked Sendable {
        // SAFETY: mutated only through a uniquely referenced box (copy-on-write).
        @usableFromInline var members: [Member]

        @usableFromInline
        init(_ members: [Member]) { self.members = members }

        deinit { JSONTeardown.dismantle(&members) }
    }

    /// The members when `storage` is nil (a tree of bounded height; see JSONArray.swift).
    @usableFromInline var plain: [Member]
    /// The box holding the members, or nil when they are `plain`.
    @usableFromInline var storage: Storage?

    /// The members in order.
    @inlinable
    public var members: [Member] {
        get { storage?.members ?? plain }
        _modify {
            // A mutation may add a deep subtree: the members move into a box first (no copy
            // when they are uniquely referenced).
            if storage == nil {
                storage = Storage(plain)
                plain = []
            } else if !isKnownUniquelyReferenced(&storage!) {
                storage = Storage(storage!.members)
            }
            yield &storage!.members
        }
    }

    /// Creates an object.
    /// - Parameter members: the members, in order.
    public init(_ members: [Member] = []) {
        if JSONTeardown.allScalars(members) {
            plain = members
            storage = nil
        } else {
            plain = []
            storage = Storage(members)
        }
    }

    /// An object whose tree is `height` levels high (1: only scalar values), as the parser knows it.
    @inline(__always)
    init(members: __owned [Member], height: Int) {
        if height <= JSONTeardown.plainHeightLimit {
            plain = members
            storage = nil
        } else {
            plain = []
            storage = Storage(members)
        }
    }

    /// Equal when the members are, in order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        if let left = lhs.storage, let right = rhs.storage, left === right { return true }
        return lhs.members == rhs.members
    }

    /// Hashes the members.
    public func hash(into hasher: inout Hasher) { hasher.combine(members) }

    /// The number of members (duplicates counted).
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The member names in order (duplicates repeated).
    public var keys: [String] { members.map(\.key) }

    /// The value of the last member named `key`. Setting replaces that member's value in place
    /// (or appends a member when there is none); setting nil removes every member named `key`.
    /// - Parameter key: the member name.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = lastIndex(of: key) else { return nil }
            return members[index].value
        }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let index = lastIndex(of: key) {
                members[index].value = newValue
            } else {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Every value stored under `key`, in order.
    /// - Parameter key: the member name.
    /// - Returns: the values; empty when there is no such member.
    public func values(forKey key: String) -> [JSONValue] {
        members.filter { $0.key == key }.map(\.value)
    }

    /// Appends a member, even when one with the same name exists.
    /// - Parameters:
    ///   - key: the name.
    ///   - value: the value.
    public mutating func append(key: String, value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    /// The index of the last member named `key`.
    /// - Parameter key: the member name.
    /// - Returns: the index in `members`, or nil.
    public func lastIndex(of key: String) -> Int? {
        members.lastIndex { $0.key == key }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object literal; members keep the literal's order (and its duplicates).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { Member(key: $0.0, value: $0.1) })
    }
}

extension JSONObject: Sequence {
    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
}
