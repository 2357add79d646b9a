// OutOfLine: a struct's rarely set parts kept behind one reference, copied before a write when
// shared. ConnectionError and SessionError use it: every `throws(...)` call of an async function
// reserves room for the error in the caller's frame, and with these parts inline each error was
// several hundred bytes, which grew every task's stack slab by slab (docs/benchmarks.md, "Memory").

/// What `OutOfLine` holds: a value whose `init()` is "nothing set".
protocol OutOfLineParts: Sendable {
    init()
}

/// Parts stored out of line: no allocation until one is set, a value type all the same.
struct OutOfLine<Parts: OutOfLineParts>: @unchecked Sendable {
    // @unchecked: the box is written only in `modify`, which first copies a box another value
    // shares, so a shared box is never written (copy on write).
    private final class Box {
        var parts: Parts
        init(_ parts: Parts) { self.parts = parts }
    }

    private var box: Box?

    /// Nothing set.
    init() {}

    /// The parts, or nil when none was ever set.
    var parts: Parts? { box?.parts }

    /// Whether no part was ever set (then setting a part to its empty value need not allocate).
    var isEmpty: Bool { box == nil }

    /// Changes the parts in place, after making them this value's alone.
    mutating func modify(_ body: (inout Parts) -> Void) {
        if box == nil {
            box = Box(Parts())
        } else if !isKnownUniquelyReferenced(&box) {
            box = Box(box!.parts)
        }
        body(&box!.parts)
    }
}
