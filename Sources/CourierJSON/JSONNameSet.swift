// JSONNameSet: the member names of the open objects, for the rule on repeated names (the last
// member of a name wins; docs/json.md), shared by the tape builder and the tree builder.
//
// Theory of operation. Every name gets a 32-bit hash of its length and its first and last eight
// bytes (all of a name up to 16 bytes). Each open object keeps a 128-bit signature of the hashes
// of its names: a clear bit proves a name is new, so in the usual object — names all different —
// a name costs a hash, a bit test and a record, and no comparison. When the bit is set, the
// object's earlier names are compared (hash, length, then bytes); an object of more than 32
// names, whose signature fills up, gets a table from hash to its latest name, so the check stays
// linear.
//
// Records: one per name, in order, the innermost object's last; `location` is where the caller
// finds the name's bytes (an input offset, or a position in its own buffer of unescaped names)
// and `slot` what the caller removes when a later name repeats it (a tape index, a member index).
//
// Invariants: frames[0..<depth] are the open objects, innermost last (arrays have none);
// records[frame.start..<count] are the names of the innermost object.

struct JSONNameSet {
    struct Record {
        var hash: UInt32
        var length: UInt32
        var location: Int
        var slot: Int
        /// Set once a later member with the same name replaced this one.
        var removed: Bool
        /// The previous record of the same object with the same hash (large objects only), or -1.
        var previous: Int32
    }

    private struct Frame {
        var start: Int
        var signature: UInt64
        var signature2: UInt64
        /// Index in `tables` of this object's table, or -1 while it has 32 names or fewer.
        var table: Int
    }

    private var records: UnsafeMutablePointer<Record>
    private var recordCapacity = 64
    private(set) var count = 0
    private var frames: UnsafeMutablePointer<Frame>
    private var frameCapacity = 16
    private var depth = 0
    private var top = Frame(start: 0, signature: 0, signature2: 0, table: -1)
    /// Hash → the latest record with that hash, for the open objects with more than 32 names.
    private var tables: [[UInt32: Int32]] = []

    init() {
        records = .allocate(capacity: 64)
        frames = .allocate(capacity: 16)
    }

    mutating func deallocate() {
        records.deallocate()
        frames.deallocate()
    }

    /// Forgets every name, keeping the buffers (for the next parse).
    mutating func reset() {
        count = 0
        depth = 0
        top = Frame(start: 0, signature: 0, signature2: 0, table: -1)
        tables = []
    }

    /// The first record of the innermost object.
    var objectStart: Int { top.start }

    @inline(__always)
    func record(_ index: Int) -> Record {
        // SAFETY: callers pass indices below count.
        records[index]
    }

    /// An object opens.
    @inline(__always)
    mutating func openObject() {
        if depth == frameCapacity { growFrames() }
        // SAFETY: depth < frameCapacity.
        frames[depth] = top
        depth &+= 1
        top = Frame(start: count, signature: 0, signature2: 0, table: -1)
    }

    /// The innermost object closes; its names are dropped.
    @inline(__always)
    mutating func closeObject() {
        count = top.start
        if top.table >= 0 { tables.removeLast() }
        depth &-= 1
        // SAFETY: depth was >= 1 (an object was open).
        top = frames[depth]
    }

    /// Adds a name to the innermost object.
    /// - Parameters:
    ///   - bytes: the name's (unescaped) bytes; `readable` bytes may be read from there (at least
    ///     `length`; eight or more lets the hash use one masked load).
    ///   - location, slot: kept in the record for the caller.
    ///   - bytesAt: the bytes of an earlier record's `location`.
    /// - Returns: the index of the earlier live record with the same name, now marked removed.
    @inline(__always)
    mutating func add(_ bytes: UnsafePointer<UInt8>, length: Int, readable: Int, location: Int, slot: Int,
                      bytesAt: (Int) -> UnsafePointer<UInt8>) -> Int? {
        let hash = JSONNameSet.hash(bytes, length, readable: readable)
        let bit: UInt64 = 1 &<< UInt64(hash & 63)
        let seen = hash & 64 == 0 ? top.signature : top.signature2
        var replaced: Int? = nil
        if seen & bit != 0 || top.table >= 0 {
            replaced = findAndRemove(bytes, length: length, hash: hash, bytesAt: bytesAt)
        }
        if hash & 64 == 0 { top.signature |= bit } else { top.signature2 |= bit }
        if count == recordCapacity { growRecords() }
        var record = Record(hash: hash, length: UInt32(truncatingIfNeeded: length), location: location, slot: slot,
                            removed: false, previous: -1)
        if top.table >= 0 {
            record.previous = tables[top.table][hash] ?? -1
            tables[top.table][hash] = Int32(truncatingIfNeeded: count)
        }
        // SAFETY: count < recordCapacity.
        records[count] = record
        count &+= 1
        if top.table < 0 && count &- top.start > 32 { buildTable() }
        return replaced
    }

    /// Drops the last name (its member's value was a null being removed).
    @inline(__always)
    mutating func removeLast() {
        count &-= 1
        if top.table >= 0 {
            // SAFETY: count is the index of the record just dropped.
            let record = records[count]
            tables[top.table][record.hash] = record.previous >= 0 ? record.previous : nil
        }
    }

    /// Finds the live earlier name equal to `bytes` in the innermost object and marks it removed.
    @inline(never)
    private mutating func findAndRemove(_ bytes: UnsafePointer<UInt8>, length: Int, hash: UInt32,
                                        bytesAt: (Int) -> UnsafePointer<UInt8>) -> Int? {
        var i = top.table >= 0 ? Int(tables[top.table][hash] ?? -1) : count &- 1
        while i >= top.start {
            // SAFETY: top.start <= i < count.
            let record = records[i]
            if record.hash == hash && !record.removed && Int(record.length) == length
                && JSONStrings.equal(bytesAt(record.location), bytes, length) {
                records[i].removed = true
                return i
            }
            i = top.table >= 0 ? Int(record.previous) : i &- 1
        }
        return nil
    }

    private mutating func buildTable() {
        var table: [UInt32: Int32] = [:]
        var i = top.start
        while i < count {
            // SAFETY: i < count.
            records[i].previous = table[records[i].hash] ?? -1
            table[records[i].hash] = Int32(truncatingIfNeeded: i)
            i &+= 1
        }
        top.table = tables.count
        tables.append(table)
    }

    @inline(never)
    private mutating func growRecords() {
        let fresh = UnsafeMutablePointer<Record>.allocate(capacity: recordCapacity &* 2)
        // SAFETY: the first `count` records are initialised (a trivial type).
        fresh.update(from: records, count: count)
        records.deallocate()
        records = fresh
        recordCapacity &*= 2
    }

    @inline(never)
    private mutating func growFrames() {
        let fresh = UnsafeMutablePointer<Frame>.allocate(capacity: frameCapacity &* 2)
        // SAFETY: the first `depth` frames are initialised (a trivial type).
        fresh.update(from: frames, count: depth)
        frames.deallocate()
        frames = fresh
        frameCapacity &*= 2
    }

    /// A 32-bit hash of a name's length and its first and last eight bytes (all of a name up to
    /// 16 bytes); equal names hash alike, and the bytes are compared before anything is removed.
    /// - Parameter readable: how many bytes from `pointer` may be read (at least `length`).
    @inline(__always)
    static func hash(_ pointer: UnsafePointer<UInt8>, _ length: Int, readable: Int) -> UInt32 {
        var first: UInt64 = 0
        var last: UInt64 = 0
        if length >= 8 {
            // SAFETY: length >= 8 bytes are readable at pointer.
            first = UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self)
            last = UnsafeRawPointer(pointer + (length &- 8)).loadUnaligned(as: UInt64.self)
        } else if readable >= 8 {
            // SAFETY: 8 bytes are readable; the bytes past the name are masked off.
            first = UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
                & ((1 &<< UInt64(length &* 8)) &- 1)
        } else {
            var i = 0
            while i < length {
                // SAFETY: i < length.
                first |= UInt64(pointer[i]) &<< UInt64(i &* 8)
                i &+= 1
            }
        }
        var h = (first ^ UInt64(length)) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ last ^ (h &>> 29)) &* 0xC2B2_AE3D_27D4_EB4F
        return UInt32(truncatingIfNeeded: h &>> 32)
    }
}
