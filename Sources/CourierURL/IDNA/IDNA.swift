// IDNA: UTS #46 (Unicode IDNA Compatibility Processing, revision for Unicode 15.0.0) ToASCII and
// ToUnicode, with the flags browsers and curl use for host names:
//
//   Transitional_Processing = false   "ß", "ς", ZWJ and ZWNJ are kept (IDNA2008), not mapped
//   CheckHyphens = true               no "-" at either end, none in both positions 3 and 4
//   CheckBidi = true                  RFC 5893 §2 on every label of a name holding R, AL or AN
//   CheckJoiners = true               RFC 5892 Appendix A.1 and A.2 (ZWNJ, ZWJ)
//   UseSTD3ASCIIRules = true          ASCII only as letters, digits and "-" ("_" is refused)
//   VerifyDnsLength = true            labels 1–63 bytes, the name 1–253 (a trailing root "." aside)
//
// Processing (§4): map each code point by the IDNA Mapping Table (disallowed → error, ignored →
// removed, mapped → replaced, deviation and valid → kept), normalise to NFC, split at U+002E,
// then per label: "xn--" labels are Punycode-decoded and must be valid nontransitionally; every
// label must meet the validity criteria (§4.1). ToASCII (§4.2) then Punycode-encodes each label
// holding non-ASCII and checks the DNS lengths.
//
// Two points beyond UTS #46 15.0, both from its later revisions and what browsers do: a label
// given as "xn--" must decode to something holding non-ASCII (revision 31: "xn--abc-" is not a
// way to write "abc"), and the input is bounded (`maximumInputLength`) so that no host costs more
// than a bounded amount of work.
//
// Errors: processing goes on past the first error as UTS #46 describes, and the error reported
// is the first rule broken (in the order of the standard) by the first label at fault.

/// UTS #46 processing of domain names: ToASCII for DNS, TLS and the Host field, ToUnicode for
/// display.
///
/// The flags are those browsers and curl use for host names: nontransitional processing,
/// CheckHyphens, CheckBidi, CheckJoiners, UseSTD3ASCIIRules and VerifyDnsLength. The tables are
/// Unicode 15.0.0 (`unicodeVersion`), generated from Unicode's data files (docs/url.md).
public enum IDNA {
    /// The Unicode version of the mapping, normalisation and property tables.
    public static let unicodeVersion: String = IDNATables.unicodeVersion

    /// The longest input processed, in Unicode scalars; a longer one fails with
    /// `IDNAError.Rule.domainLength`. A DNS name has at most 253 bytes, so only a name padded with
    /// hundreds of ignored code points (soft hyphens, variation selectors) could need more; the
    /// bound keeps the work per host small whatever the input.
    public static let maximumInputLength = 1024

    /// UTS #46 ToASCII: the domain name as DNS, TLS SNI, certificate matching and the Host field
    /// need it, every label holding non-ASCII written as "xn--" and Punycode.
    ///
    /// `IDNA.toASCII("Bücher.example")` is `"xn--bcher-kva.example"`. A trailing "." (the root)
    /// is kept.
    /// - Parameter domain: the domain name, in any mix of Unicode and ASCII.
    /// - Returns: the ASCII form, lower case.
    /// - Throws: `IDNAError` naming the first label at fault and the rule it breaks.
    public static func toASCII(_ domain: String) throws(IDNAError) -> String {
        let (scalars, offsets) = scalarsAndOffsets(domain)
        return try toASCII(scalars, offsets: offsets)
    }

    /// UTS #46 ToUnicode: the domain name for display, "xn--" labels decoded.
    ///
    /// As in UTS #46, the conversion always produces a string; `error` says whether the name is
    /// valid. A caller showing a name to a person should show the ASCII form when it is not.
    /// - Parameter domain: the domain name, in any mix of Unicode and ASCII.
    /// - Returns: the name with every label mapped, normalised and decoded, and the first error.
    public static func toUnicode(_ domain: String) -> (domain: String, error: IDNAError?) {
        let (scalars, offsets) = scalarsAndOffsets(domain)
        let result = process(scalars, offsets: offsets, checkingLengths: false)
        var text = String.UnicodeScalarView()
        for (index, label) in result.labels.enumerated() {
            if index > 0 { text.append(".") }
            for scalar in label { text.append(Unicode.Scalar(scalar)!) }
        }
        return (String(text), result.error)
    }

    /// Normalization Form C of `scalars`, for the fuzz target's comparison with the standard
    /// library's normaliser.
    @_spi(Fuzzing) public static func nfc(_ scalars: [UInt32]) -> [UInt32] {
        UnicodeNormalization.nfc(scalars)
    }

    // MARK: Internals, on scalars

    /// The scalars of `text` and the UTF-8 offset of each (one more: the end).
    static func scalarsAndOffsets(_ text: String) -> ([UInt32], [Int]) {
        var scalars: [UInt32] = [], offsets: [Int] = []
        var offset = 0
        for scalar in text.unicodeScalars {
            scalars.append(scalar.value)
            offsets.append(offset)
            offset += UTF8.width(scalar)
        }
        offsets.append(offset)
        return (scalars, offsets)
    }

    /// ToASCII on scalars; `offsets[i]` is where scalar `i` starts in the caller's input, and
    /// `offsets.last` where the input ends.
    static func toASCII(_ scalars: [UInt32], offsets: [Int]) throws(IDNAError) -> String {
        let result = process(scalars, offsets: offsets, checkingLengths: true)
        if let error = result.error { throw error }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(result.labels.reduce(0) { $0 + $1.count + 8 })
        for (index, label) in result.labels.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ".")) }
            // Step 3's Punycode, done once by `process` for the length checks.
            if let encoded = result.encoded[index] {
                bytes.append(contentsOf: "xn--".utf8)
                for scalar in encoded { bytes.append(UInt8(truncatingIfNeeded: scalar)) }
            } else {
                for scalar in label { bytes.append(UInt8(truncatingIfNeeded: scalar)) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    struct Processed {
        /// The labels after processing ("xn--" labels decoded), without the dots.
        var labels: [[UInt32]]
        var error: IDNAError?
        /// With `checkingLengths`: the Punycode of each label holding non-ASCII (nil for ASCII).
        var encoded: [[UInt32]?] = []
    }

    private static let fullStop: UInt32 = 0x2E, hyphen: UInt32 = 0x2D

    /// UTS #46 §4 processing, then (when `checkingLengths`) the §4.2 steps 3 and 4 checks.
    static func process(_ input: [UInt32], offsets: [Int], checkingLengths: Bool) -> Processed {
        guard input.count <= maximumInputLength else {
            return Processed(labels: [input], error: IDNAError(rule: .domainLength, label: "", labelIndex: 0, offset: 0))
        }
        // Step 1, map. Record where each label starts in the input and which labels hold a
        // disallowed code point (processing goes on with it unchanged).
        var mapped: [UInt32] = []
        mapped.reserveCapacity(input.count)
        var labelOffsets = [offsets.first ?? 0]
        var disallowedLabels: [Int] = []
        for (index, scalar) in input.enumerated() {
            switch UnicodeProperties.idnaStatus(scalar) {
            case .valid:
                mapped.append(scalar)
                if scalar == fullStop { labelOffsets.append(offsets[index + 1]) }
            case .disallowed:
                mapped.append(scalar)
                if disallowedLabels.last != labelOffsets.count - 1 { disallowedLabels.append(labelOffsets.count - 1) }
            case .mappedTo(let replacement):
                mapped.append(replacement)
                if replacement == fullStop { labelOffsets.append(offsets[index + 1]) }
            case .mapped(let replacement):
                for scalar in replacement {
                    mapped.append(scalar)
                    if scalar == fullStop { labelOffsets.append(offsets[index + 1]) }
                }
            }
        }
        // Step 2, normalise (NFC neither makes nor removes a U+002E, so the label starts hold).
        let normalized = UnicodeNormalization.nfc(mapped)
        // Step 3, break.
        var labels = normalized.split(separator: fullStop, omittingEmptySubsequences: false).map(Array.init)
        assert(labels.count == labelOffsets.count)

        // Step 4, convert and validate.
        var rules = [IDNAError.Rule?](repeating: nil, count: labels.count)
        let given = labels          // as given, for the error's label text when decoding fails
        for index in labels.indices {
            let label = labels[index]
            if disallowedLabels.contains(index) { rules[index] = .disallowedCodePoint; continue }
            if label.isEmpty {
                // A trailing empty label is the root; any other is an error (X4_2 / A4_2).
                if index == labels.count - 1 && index > 0 { continue }
                rules[index] = .labelLength
                continue
            }
            if label.count >= 4, label[0] == 0x78, label[1] == 0x6E, label[2] == hyphen, label[3] == hyphen {
                guard let decoded = Punycode.decode(label[4...]), decoded.contains(where: { $0 >= 0x80 }) else {
                    rules[index] = .invalidPunycode
                    continue
                }
                labels[index] = decoded
                rules[index] = validityViolation(decoded, decoded: true)
            } else {
                rules[index] = validityViolation(label, decoded: false)
            }
        }
        // CheckBidi applies to every label once any label holds R, AL or AN (UTS #46 §4.1 V8,
        // "Bidi domain name", RFC 5893 §1.4).
        let isBidiDomain = labels.contains { label in
            label.contains { scalar in
                let bidi = UnicodeProperties.bidiClass(scalar)
                return bidi == .r || bidi == .al || bidi == .an
            }
        }
        if isBidiDomain {
            for index in labels.indices where rules[index] == nil && !labels[index].isEmpty {
                rules[index] = bidiViolation(labels[index])
            }
        }
        var encoded: [[UInt32]?] = []
        if checkingLengths, !rules.contains(where: { $0 != nil }) {
            encoded = lengthViolations(labels, into: &rules)
        }

        guard let first = rules.firstIndex(where: { $0 != nil }) else {
            return Processed(labels: labels, error: nil, encoded: encoded)
        }
        if rules[first] == .domainLength {
            // The whole name is at fault, not a label.
            return Processed(labels: labels, error: IDNAError(rule: .domainLength, label: "", labelIndex: 0, offset: labelOffsets[0]))
        }
        let shown = rules[first] == .invalidPunycode || rules[first] == .disallowedCodePoint ? given[first] : labels[first]
        var text = String.UnicodeScalarView()
        for scalar in shown { text.append(Unicode.Scalar(scalar) ?? "\u{FFFD}") }
        let error = IDNAError(rule: rules[first]!, label: String(text), labelIndex: first, offset: labelOffsets[first])
        return Processed(labels: labels, error: error)
    }

    /// §4.2 steps 3 and 4: Punycode for non-ASCII labels, then the DNS lengths.
    /// - Returns: the Punycode of each label holding non-ASCII, nil for the others.
    private static func lengthViolations(_ labels: [[UInt32]], into rules: inout [IDNAError.Rule?]) -> [[UInt32]?] {
        var total = 0
        var encodings: [[UInt32]?] = []
        encodings.reserveCapacity(labels.count)
        for (index, label) in labels.enumerated() {
            var length = label.count
            var encoding: [UInt32]?
            if label.contains(where: { $0 >= 0x80 }) {
                guard let encoded = Punycode.encode(label) else { rules[index] = .punycodeOverflow; return encodings }
                length = 4 + encoded.count
                encoding = encoded
            }
            encodings.append(encoding)
            let isRoot = index == labels.count - 1 && index > 0 && label.isEmpty
            if isRoot { break }
            if length > 63 { rules[index] = .labelLength; return encodings }
            total += length + (index > 0 ? 1 : 0)
        }
        if total > 253 { rules[0] = .domainLength }
        return encodings
    }

    /// The first validity criterion of UTS #46 §4.1 that `label` breaks, CheckBidi aside.
    /// `decoded`: the label came from "xn--" Punycode, so it must also be NFC, hold no "." and
    /// hold only valid code points (the others were mapped, normalised and split).
    private static func validityViolation(_ label: [UInt32], decoded: Bool) -> IDNAError.Rule? {
        if decoded, !UnicodeNormalization.isNFC(label) { return .notNFC }
        if label.count >= 4, label[2] == hyphen, label[3] == hyphen { return .hyphensInThirdAndFourth }
        if label.first == hyphen || label.last == hyphen { return .leadingOrTrailingHyphen }
        if label.contains(fullStop) { return .fullStopInLabel }
        if let first = label.first, UnicodeProperties.isMark(first) { return .leadingCombiningMark }
        for scalar in label where scalar >= 0x80 || decoded {
            guard UnicodeProperties.idnaStatus(scalar) == .valid else { return .invalidCodePoint }
        }
        return joinerViolation(label)
    }

    private static let virama: UInt8 = 9

    /// CheckJoiners: RFC 5892 Appendix A.1 (ZWNJ) and A.2 (ZWJ).
    private static func joinerViolation(_ label: [UInt32]) -> IDNAError.Rule? {
        for (index, scalar) in label.enumerated() where scalar == 0x200C || scalar == 0x200D {
            if index > 0, UnicodeProperties.combiningClass(label[index - 1]) == virama { continue }
            if scalar == 0x200D { return .zeroWidthJoiner }
            // (Joining_Type:{L,D})(Joining_Type:T)* ZWNJ (Joining_Type:T)*(Joining_Type:{R,D})
            var before = index - 1
            while before >= 0, UnicodeProperties.joiningType(label[before]) == .transparent { before -= 1 }
            guard before >= 0 else { return .zeroWidthNonJoiner }
            let left = UnicodeProperties.joiningType(label[before])
            guard left == .leftJoining || left == .dualJoining else { return .zeroWidthNonJoiner }
            var after = index + 1
            while after < label.count, UnicodeProperties.joiningType(label[after]) == .transparent { after += 1 }
            guard after < label.count else { return .zeroWidthNonJoiner }
            let right = UnicodeProperties.joiningType(label[after])
            guard right == .rightJoining || right == .dualJoining else { return .zeroWidthNonJoiner }
        }
        return nil
    }

    /// A set of Bidi classes as bits, by raw value.
    private static func bits(_ classes: BidiClass...) -> UInt32 {
        classes.reduce(0) { $0 | 1 << $1.rawValue }
    }
    private static let rtlAllowed = bits(.r, .al, .an, .en, .es, .cs, .et, .on, .bn, .nsm)
    private static let rtlEnd = bits(.r, .al, .en, .an)
    private static let ltrAllowed = bits(.l, .en, .es, .cs, .et, .on, .bn, .nsm)
    private static let ltrEnd = bits(.l, .en)
    private static let rtlStart = bits(.r, .al), europeanDigit = bits(.en), arabicDigit = bits(.an)
    private static let leftToRight = bits(.l), nonspacingMark = bits(.nsm)

    /// CheckBidi: the first of RFC 5893 §2's six rules that `label` breaks.
    private static func bidiViolation(_ label: [UInt32]) -> IDNAError.Rule? {
        var present: UInt32 = 0          // every class in the label
        var end: UInt32 = 0              // the last class other than NSM
        for scalar in label {
            let bit: UInt32 = 1 << UnicodeProperties.bidiClass(scalar).rawValue
            present |= bit
            if bit != nonspacingMark { end = bit }
        }
        let first: UInt32 = 1 << UnicodeProperties.bidiClass(label[0]).rawValue
        if first & rtlStart != 0 {
            if present & ~rtlAllowed != 0 { return .bidiRTLCharacter }
            if end & rtlEnd == 0 { return .bidiRTLEnd }
            if present & europeanDigit != 0 && present & arabicDigit != 0 { return .bidiNumberMix }
            return nil
        }
        if first == leftToRight {
            if present & ~ltrAllowed != 0 { return .bidiLTRCharacter }
            if end & ltrEnd == 0 { return .bidiLTREnd }
            return nil
        }
        return .bidiFirstCharacter
    }
}
