// JSONArray and the teardown of deep trees.
//
// Why a box. Releasing a `JSONValue` tree whose containers were plain Swift arrays recursed in
// the runtime, one level per nesting level, and a tree 40,000–70,000 levels deep (possible when a
// caller raises `maxDepth`) overflowed the stack while being freed. Arrays and objects now keep
// their contents in a class box whose `deinit` dismantles what it uniquely owns with a work
// list: each child container it holds the only reference to gives up its contents to the list
// before it is released, so releasing never goes more than one level deep, whatever the depth.
// Copies stay cheap (the box is shared, copy-on-write) and equality, hashing and the collection
// API are the array's.

/// The elements of a JSON array: a random-access, mutable, copy-on-write collection of
/// `JSONValue`s (a `[JSONValue]` in a box that frees deep trees without recursion).
public struct JSONArray: Sendable, Hashable {
    @usableFromInline
    final class Storage: @unchecked Sendable {
        // SAFETY: mutated only through a uniquely referenced box (copy-on-write).
        @usableFromInline var elements: [JSONValue]

        @usableFromInline
        init(_ elements: [JSONValue]) { self.elements = elements }

        deinit { JSONTeardown.dismantle(&elements) }
    }

    @usableFromInline var storage: Storage

    /// Creates an array.
    /// - Parameter elements: the elements, in order.
    @inlinable
    public init(_ elements: [JSONValue]) { storage = Storage(elements) }

    /// Creates an empty array.
    @inlinable
    public init() { storage = Storage([]) }

    /// The elements as a Swift array (shared, not copied).
    @inlinable
    public var elements: [JSONValue] {
        get { storage.elements }
        set {
            if isKnownUniquelyReferenced(&storage) { storage.elements = newValue } else { storage = Storage(newValue) }
        }
    }

    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.elements) }
    }

    /// Equal when the elements are.
    public static func == (lhs: JSONArray, rhs: JSONArray) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.elements == rhs.storage.elements
    }

    /// Hashes the elements.
    public func hash(into hasher: inout Hasher) { hasher.combine(storage.elements) }
}

extension JSONArray: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    /// The position of the first element.
    @inlinable public var startIndex: Int { 0 }
    /// The position after the last element.
    @inlinable public var endIndex: Int { storage.elements.count }

    /// The element at `position`.
    /// - Parameter position: a valid index.
    @inlinable
    public subscript(position: Int) -> JSONValue {
        get { storage.elements[position] }
        set {
            makeUnique()
            storage.elements[position] = newValue
        }
    }

    /// Replaces a range of elements.
    /// - Parameters:
    ///   - subrange: the elements to replace.
    ///   - newElements: their replacements.
    @inlinable
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == JSONValue {
        makeUnique()
        storage.elements.replaceSubrange(subrange, with: newElements)
    }

    /// Reserves room for `minimumCapacity` elements.
    /// - Parameter minimumCapacity: the capacity wanted.
    @inlinable
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        makeUnique()
        storage.elements.reserveCapacity(minimumCapacity)
    }
}

extension JSONArray: ExpressibleByArrayLiteral {
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self.init(elements) }
}

extension JSONArray: CustomStringConvertible {
    /// The compact JSON text of the array.
    public var description: String { JSONWriter.string(.array(self)) }
}

/// Freeing trees without recursion (see the file header).
enum JSONTeardown {
    /// Empties `elements`, taking apart every container in it that nothing else holds, level by
    /// level on a work list, so no release recurses more than one level.
    static func dismantle(_ elements: inout [JSONValue]) {
        // Most arrays hold no container, or only containers shared elsewhere: nothing to do.
        guard elements.contains(where: \.isContainer) else { return }
        var work: [JSONValue] = []
        swap(&work, &elements)
        drain(&work)
    }

    /// Empties `members` the same way.
    static func dismantle(_ members: inout [JSONObject.Member]) {
        guard members.contains(where: { $0.value.isContainer }) else { return }
        var work: [JSONValue] = []
        work.reserveCapacity(members.count)
        for member in members { work.append(member.value) }
        members = []
        drain(&work)
    }

    private static func drain(_ work: inout [JSONValue]) {
        while var value = work.popLast() {
            value.giveUpContents(to: &work)
        }
    }
}

extension JSONValue {
    @inline(__always)
    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    /// Moves the contents of this container to `work` when this value holds the only reference
    /// to them, so that releasing it frees an empty box.
    mutating func giveUpContents(to work: inout [JSONValue]) {
        // The box is taken into a local first and `self` cleared, so the local is the only
        // reference left when nothing else holds the box (a pattern binding inside the `switch`
        // would be a second one in unoptimised builds).
        var arrayStorage: JSONArray.Storage? = nil
        var objectStorage: JSONObject.Storage? = nil
        switch self {
        case .array(let array): arrayStorage = array.storage
        case .object(let object): objectStorage = object.storage
        default: return
        }
        self = .null
        if arrayStorage != nil && isKnownUniquelyReferenced(&arrayStorage!) {
            work.append(contentsOf: arrayStorage!.elements)
            arrayStorage!.elements = []
        } else if objectStorage != nil && isKnownUniquelyReferenced(&objectStorage!) {
            for member in objectStorage!.members { work.append(member.value) }
            objectStorage!.members = []
        }
    }
}
