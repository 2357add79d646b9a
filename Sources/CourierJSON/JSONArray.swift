// JSONArray and the teardown of deep trees.
//
// Why not always a plain Swift array. Releasing a `JSONValue` tree whose containers are plain
// Swift arrays recurses in the runtime, one level per nesting level, and a tree 40,000–70,000
// levels deep (possible when a caller raises `maxDepth`) overflows the stack while being freed.
//
// Why not always a box. A class box whose `deinit` dismantles the tree on a work list frees any
// depth without recursion, but costs a second allocation per container and a walk on every
// release: with a box for every container, parsing the benchmark document to a tree and freeing
// it took five times as long as with plain arrays.
//
// So a container is plain when its height is known to be small, and boxed otherwise:
//   * plain: the elements are an ordinary `[JSONValue]` and the runtime frees them, recursing at
//     most `JSONTeardown.plainHeightLimit` levels (a few kilobytes of stack). Plain containers
//     are made only where that bound is known — by the parser, which knows every container's
//     height, and by initialisers whose elements are all scalars (height 1) — and are never
//     mutated in place: a mutation first moves the elements into a box (no copy when unique).
//   * boxed: the elements are in a class box whose `deinit` dismantles what it uniquely owns on
//     a work list: each boxed child it holds the only reference to gives up its contents to the
//     list before it is released, and plain children are released directly (bounded).
// Either way copies are cheap (copy-on-write), and equality, hashing and the collection API are
// the elements'.

/// The elements of a JSON array: a random-access, mutable, copy-on-write collection of
/// `JSONValue`s (a `[JSONValue]`, boxed when the tree may be deep so that it is freed without
/// recursion).
public struct JSONArray: Sendable, Hashable {
    @usableFromInline
    final class Storage: @unchecked Sendable {
        // SAFETY: mutated only through a uniquely referenced box (copy-on-write).
        @usableFromInline var elements: [JSONValue]

        @usableFromInline
        init(_ elements: [JSONValue]) { self.elements = elements }

        deinit { JSONTeardown.dismantle(&elements) }
    }

    /// The elements when `storage` is nil (a tree of bounded height; see the file header).
    @usableFromInline var plain: [JSONValue]
    /// The box holding the elements, or nil when they are `plain`.
    @usableFromInline var storage: Storage?

    /// Creates an array.
    /// - Parameter elements: the elements, in order.
    @inlinable
    public init(_ elements: [JSONValue]) {
        if JSONTeardown.allScalars(elements) {
            plain = elements
            storage = nil
        } else {
            plain = []
            storage = Storage(elements)
        }
    }

    /// Creates an empty array.
    @inlinable
    public init() {
        plain = []
        storage = nil
    }

    /// An array whose tree is `height` levels high (1: only scalars), as the parser knows it.
    @inline(__always)
    init(elements: __owned [JSONValue], height: Int) {
        if height <= JSONTeardown.plainHeightLimit {
            plain = elements
            storage = nil
        } else {
            plain = []
            storage = Storage(elements)
        }
    }

    /// The elements as a Swift array (shared, not copied).
    @inlinable
    public var elements: [JSONValue] {
        get { storage?.elements ?? plain }
        set { self = JSONArray(newValue) }
    }

    /// Makes the elements boxed and the box unique, so they can be mutated in place.
    @inlinable
    mutating func makeUniqueBox() {
        if storage == nil {
            // Moved, not copied: the array stays uniquely referenced if it was.
            storage = Storage(plain)
            plain = []
        } else if !isKnownUniquelyReferenced(&storage!) {
            storage = Storage(storage!.elements)
        }
    }

    /// Equal when the elements are.
    public static func == (lhs: JSONArray, rhs: JSONArray) -> Bool {
        if let left = lhs.storage, let right = rhs.storage, left === right { return true }
        return lhs.elements == rhs.elements
    }

    /// Hashes the elements.
    public func hash(into hasher: inout Hasher) { hasher.combine(elements) }
}

extension JSONArray: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    /// The position of the first element.
    @inlinable public var startIndex: Int { 0 }
    /// The position after the last element.
    @inlinable public var endIndex: Int { storage?.elements.count ?? plain.count }

    /// The element at `position`.
    /// - Parameter position: a valid index.
    @inlinable
    public subscript(position: Int) -> JSONValue {
        get { storage?.elements[position] ?? plain[position] }
        set {
            makeUniqueBox()
            storage!.elements[position] = newValue
        }
    }

    /// Replaces a range of elements.
    /// - Parameters:
    ///   - subrange: the elements to replace.
    ///   - newElements: their replacements.
    @inlinable
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == JSONValue {
        makeUniqueBox()
        storage!.elements.replaceSubrange(subrange, with: newElements)
    }

    /// Reserves room for `minimumCapacity` elements.
    /// - Parameter minimumCapacity: the capacity wanted.
    @inlinable
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        makeUniqueBox()
        storage!.elements.reserveCapacity(minimumCapacity)
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
@usableFromInline
enum JSONTeardown {
    /// The most levels a plain container's tree may have: releasing it recurses that deep in the
    /// runtime (well under 100 bytes of stack a level, measured), far within the smallest thread
    /// stacks, while every document within the default depth limit of 512 is nearly all plain.
    @usableFromInline static let plainHeightLimit = 64

    /// Whether no element is a container (a container made of them has height 1).
    @inlinable
    static func allScalars(_ elements: [JSONValue]) -> Bool {
        !elements.contains(where: \.isContainer)
    }

    /// Whether no member's value is a container.
    @inlinable
    static func allScalars(_ members: [JSONObject.Member]) -> Bool {
        !members.contains(where: { $0.value.isContainer })
    }

    /// Empties `elements`, taking apart every boxed container in it that nothing else holds,
    /// level by level on a work list, so no release recurses more than the plain height limit.
    static func dismantle(_ elements: inout [JSONValue]) {
        // Most boxes hold no boxed container, or only ones shared elsewhere: nothing to do.
        guard elements.contains(where: \.isBoxedContainer) else { return }
        var work: [JSONValue] = []
        swap(&work, &elements)
        drain(&work)
    }

    /// Empties `members` the same way.
    static func dismantle(_ members: inout [JSONObject.Member]) {
        guard members.contains(where: { $0.value.isBoxedContainer }) else { return }
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
    @inlinable @inline(__always)
    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    /// Whether this is a container whose contents are in a box (possibly a deep tree).
    @inline(__always)
    var isBoxedContainer: Bool {
        switch self {
        case .array(let array): return array.storage != nil
        case .object(let object): return object.storage != nil
        default: return false
        }
    }

    /// Moves the contents of this boxed container to `work` when this value holds the only
    /// reference to its box, so that releasing it frees an empty box. A plain container is just
    /// released (its height is bounded).
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
