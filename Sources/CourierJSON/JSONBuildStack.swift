// JSONBuildStack and JSONStringCache: the parser's working storage while it builds a tree.
//
// What this file owns: the value and key stacks on which finished values wait for their
// container to close, and the cache that turns repeated short strings (object keys above all)
// into the same `String` without building and validating it again.
//
// Why unsafe storage: closing a container MOVES its slice of the stacks into the new array or
// member list (no retain/release per value, no `removeSubrange`), which Swift arrays cannot do.
// The stacks live only inside one `JSONParser.parse` call; `destroy()` (run by a `defer`, so also
// when parsing throws) deinitialises whatever is left and frees the memory.
//
// Invariants:
//   * values[0..<valueCount] and keys[0..<keyCount] are initialised; nothing beyond is.
//   * valueCount <= valueCapacity, keyCount <= keyCapacity.

/// Two growable stacks (values, and object member names) with move-out of a top slice.
struct JSONBuildStack {
    private var values: UnsafeMutablePointer<JSONValue>
    private var valueCapacity: Int
    private(set) var valueCount = 0
    private var keys: UnsafeMutablePointer<String>
    private var keyCapacity: Int
    private(set) var keyCount = 0

    init() {
        valueCapacity = 64
        values = .allocate(capacity: valueCapacity)
        keyCapacity = 64
        keys = .allocate(capacity: keyCapacity)
    }

    /// Deinitialises what is left and frees the storage; the stack must not be used afterwards.
    mutating func destroy() {
        values.deinitialize(count: valueCount)
        values.deallocate()
        keys.deinitialize(count: keyCount)
        keys.deallocate()
        valueCount = 0
        keyCount = 0
    }

    @inline(__always)
    mutating func push(_ value: __owned JSONValue) {
        if valueCount == valueCapacity { growValues() }
        // SAFETY: valueCount < valueCapacity; the slot is uninitialised.
        (values + valueCount).initialize(to: value)
        valueCount &+= 1
    }

    @inline(__always)
    mutating func pushKey(_ key: __owned String) {
        if keyCount == keyCapacity { growKeys() }
        // SAFETY: keyCount < keyCapacity; the slot is uninitialised.
        (keys + keyCount).initialize(to: key)
        keyCount &+= 1
    }

    /// Drops the last member name (its value was a null being removed).
    @inline(__always)
    mutating func popKey() {
        keyCount &-= 1
        // SAFETY: keyCount was >= 1 (a name is pushed before its value is read).
        (keys + keyCount).deinitialize(count: 1)
    }

    /// Moves values[start...] into a new array.
    ///
    /// `reserveCapacity` then `append` rather than `Array(unsafeUninitializedCapacity:)`, whose
    /// unspecialised allocation path looks up generic metadata on every call.
    mutating func moveArray(from start: Int) -> [JSONValue] {
        let n = valueCount &- start
        let source = values + start
        valueCount = start
        var array: [JSONValue] = []
        array.reserveCapacity(n)
        var i = 0
        while i < n {
            // SAFETY: i < n; the slot is initialised and, being past valueCount, no longer owned
            // by the stack.
            array.append((source + i).move())
            i &+= 1
        }
        return array
    }

    /// Moves keys[keyStart...] and values[valueStart...] (equally many) into a member list.
    mutating func moveMembers(valueStart: Int, keyStart: Int) -> [JSONObject.Member] {
        let n = valueCount &- valueStart
        let valueSource = values + valueStart
        let keySource = keys + keyStart
        valueCount = valueStart
        keyCount = keyStart
        var members: [JSONObject.Member] = []
        members.reserveCapacity(n)
        var i = 0
        while i < n {
            // SAFETY: i < n; both slots are initialised and no longer owned by the stack.
            members.append(JSONObject.Member(key: (keySource + i).move(), value: (valueSource + i).move()))
            i &+= 1
        }
        return members
    }

    /// Moves keys[keyStart...] and values[valueStart...] into a member list, leaving out (and
    /// releasing) member k when `isDropped(k)`.
    mutating func moveMembers(valueStart: Int, keyStart: Int, droppingWhere isDropped: (Int) -> Bool) -> [JSONObject.Member] {
        let n = valueCount &- valueStart
        let valueSource = values + valueStart
        let keySource = keys + keyStart
        valueCount = valueStart
        keyCount = keyStart
        var members: [JSONObject.Member] = []
        members.reserveCapacity(n)
        var i = 0
        while i < n {
            // SAFETY: i < n; both slots are initialised and no longer owned by the stack.
            let key = (keySource + i).move()
            let value = (valueSource + i).move()
            if !isDropped(i) { members.append(JSONObject.Member(key: key, value: value)) }
            i &+= 1
        }
        return members
    }

    @inline(never)
    private mutating func growValues() {
        let newCapacity = valueCapacity &* 2
        let fresh = UnsafeMutablePointer<JSONValue>.allocate(capacity: newCapacity)
        // SAFETY: the first valueCount slots are initialised; fresh has room for them.
        fresh.moveInitialize(from: values, count: valueCount)
        values.deallocate()
        values = fresh
        valueCapacity = newCapacity
    }

    @inline(never)
    private mutating func growKeys() {
        let newCapacity = keyCapacity &* 2
        let fresh = UnsafeMutablePointer<String>.allocate(capacity: newCapacity)
        // SAFETY: the first keyCount slots are initialised; fresh has room for them.
        fresh.moveInitialize(from: keys, count: keyCount)
        keys.deallocate()
        keys = fresh
        keyCapacity = newCapacity
    }
}

/// A two-way set-associative cache from short UTF-8 byte strings of the input to `String`s already built.
///
/// API responses repeat the same member names in every record; a hit costs a hash of two words
/// and a compare instead of UTF-8 validation and, above 15 bytes, an allocation. Entries are keyed
/// by content, never by position, so a hit is always the same text: up to 16 bytes the first and
/// last eight bytes (masked below eight) and the length cover every byte, and are compared as
/// words; longer texts (up to 32 bytes) are also compared byte for byte with the first occurrence.
/// Only strings without escapes (their raw bytes are their text) of 1–32 bytes go through it.
struct JSONStringCache {
    static let slotBits = 10
    static let maxLength = 32

    /// One slot: the text's first and last words, its length (0: empty slot) and where its first
    /// occurrence starts in the input, which stays readable for the whole parse.
    private struct Slot {
        var first: UInt64
        var last: UInt64
        var length: Int
        var start: Int
    }

    private let base: UnsafePointer<UInt8>
    private let count: Int
    private var slots: UnsafeMutablePointer<Slot>
    private var strings: UnsafeMutablePointer<String>

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
        let slotCount = 1 << JSONStringCache.slotBits
        slots = .allocate(capacity: slotCount)
        slots.initialize(repeating: Slot(first: 0, last: 0, length: 0, start: 0), count: slotCount)
        strings = .allocate(capacity: slotCount)
        strings.initialize(repeating: "", count: slotCount)
    }

    /// Frees the storage; the cache must not be used afterwards.
    mutating func destroy() {
        let slotCount = 1 << JSONStringCache.slotBits
        slots.deallocate()
        strings.deinitialize(count: slotCount)
        strings.deallocate()
    }

    /// The string for input bytes start..<start+length, which were validated as UTF-8 and hold no
    /// escapes, followed in the input by at least one byte (the closing quote).
    @inline(__always)
    mutating func string(start: Int, length: Int) -> String {
        guard length &- 1 < JSONStringCache.maxLength, start &+ 8 <= count else {
            return JSONStringCache.make(base + start, length)
        }
        // SAFETY: start + 8 <= count (checked above) and start + length <= count - 1 (the closing
        // quote follows), so both loads are in bounds.
        var first = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
        var last: UInt64 = 0
        if length < 8 {
            #if _endian(little)
            first &= (1 &<< UInt64(length &* 8)) &- 1
            #else
            first &= ~(UInt64.max >> UInt64(length &* 8))
            #endif
        } else {
            last = UnsafeRawPointer(base + start + length - 8).loadUnaligned(as: UInt64.self)
        }
        let hash = (first ^ (last &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(length)) &* 0xC2B2_AE3D_27D4_EB4F
        let index = Int(truncatingIfNeeded: hash >> UInt64(64 &- JSONStringCache.slotBits))
        // Two-way: the slot and its neighbour, so two names that hash alike (likely among a few
        // dozen names in 1,024 slots) do not evict each other in every record.
        if matches(index, first, last, start, length) { return strings[index] }
        let neighbour = index ^ 1
        if matches(neighbour, first, last, start, length) { return strings[neighbour] }
        let made = JSONStringCache.make(base + start, length)
        // SAFETY: index and neighbour < 1 << slotBits.
        let target = slots[index].length != 0 && slots[neighbour].length == 0 ? neighbour : index
        slots[target] = Slot(first: first, last: last, length: length, start: start)
        strings[target] = made
        return made
    }

    @inline(__always)
    private func matches(_ index: Int, _ first: UInt64, _ last: UInt64, _ start: Int, _ length: Int) -> Bool {
        // SAFETY: index < 1 << slotBits; a slot's start..<start+length lies within the input.
        let slot = slots[index]
        return slot.first == first && slot.last == last && slot.length == length
            && (length <= 16 || JSONStringCache.equal(base + slot.start, base + start, length))
    }

    @inline(__always)
    static func make(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> String {
        // SAFETY: the caller passes validated input bytes.
        String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    @inline(__always)
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var i = 0
        // SAFETY: both ranges hold `length` readable input bytes.
        while i &+ 8 <= length {
            if UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) { return false }
            i &+= 8
        }
        while i < length {
            if a[i] != b[i] { return false }
            i &+= 1
        }
        return true
    }
}
