// IDNAError: why a domain name has no ASCII form under UTS #46, naming the label and the rule.
//
// Rules carry the identifiers of UTS #46 and its conformance file IdnaTestV2.txt (P1, V3, B1,
// C1, A4_2, ...), so an error can be looked up in the standard; the prose is not API.

/// Why UTS #46 processing of a domain name failed: the first label found at fault and the rule
/// it breaks.
public struct IDNAError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A rule of UTS #46 processing (§4, §4.1, §4.2), RFC 5892 Appendix A (CheckJoiners) or
    /// RFC 5893 §2 (CheckBidi). Compare against the static constants; new rules may be added.
    public struct Rule: Hashable, Sendable, CustomStringConvertible {
        /// A stable number for logs and metrics.
        public let rawValue: UInt16
        /// The identifier UTS #46 and IdnaTestV2.txt use for the step: "P1", "V3", "B1", ...
        public let identifier: String
        /// What the rule asks, in a few words.
        public let summary: String

        init(_ rawValue: UInt16, _ identifier: String, _ summary: String) {
            self.rawValue = rawValue
            self.identifier = identifier
            self.summary = summary
        }

        /// The identifier and the summary.
        public var description: String { identifier + " " + summary }

        /// §4 step 1: a code point whose status is disallowed (with UseSTD3ASCIIRules this
        /// includes ASCII other than letters, digits, "-" and ".": "_", " ", "*", ...).
        public static let disallowedCodePoint = Rule(1, "P1", "code point not allowed in a domain name")
        /// §4 step 4: a label starting with "xn--" that is not Punycode, or that decodes to
        /// nothing or to ASCII only (UTS #46 revision 31 made that an error too).
        public static let invalidPunycode = Rule(2, "P4", "label after \"xn--\" is not valid Punycode of a non-ASCII label")
        /// §4.1 criterion 1: the label is not in Normalization Form C (decoded labels only;
        /// processing normalises the others).
        public static let notNFC = Rule(3, "V1", "label not in Normalization Form C")
        /// §4.1 criterion 2 (CheckHyphens): "-" in both the third and fourth positions.
        public static let hyphensInThirdAndFourth = Rule(4, "V2", "\"-\" in both the third and fourth positions")
        /// §4.1 criterion 3 (CheckHyphens): the label begins or ends with "-".
        public static let leadingOrTrailingHyphen = Rule(5, "V3", "label begins or ends with \"-\"")
        /// §4.1 criterion 4: a decoded label holds U+002E FULL STOP.
        public static let fullStopInLabel = Rule(6, "V4", "label contains \".\"")
        /// §4.1 criterion 5: the label begins with a combining mark (General_Category M).
        public static let leadingCombiningMark = Rule(7, "V5", "label begins with a combining mark")
        /// §4.1 criterion 6: a decoded label holds a code point that is not valid.
        public static let invalidCodePoint = Rule(8, "V6", "code point not valid in a label")
        /// CheckJoiners, RFC 5892 A.1: U+200C ZERO WIDTH NON-JOINER outside its contexts.
        public static let zeroWidthNonJoiner = Rule(9, "C1", "ZERO WIDTH NON-JOINER not after a virama or between joining letters")
        /// CheckJoiners, RFC 5892 A.2: U+200D ZERO WIDTH JOINER not after a virama.
        public static let zeroWidthJoiner = Rule(10, "C2", "ZERO WIDTH JOINER not after a virama")
        /// CheckBidi, RFC 5893 §2 rule 1: in a Bidi domain name, a label must start with a
        /// character of Bidi class L, R or AL.
        public static let bidiFirstCharacter = Rule(11, "B1", "label of a right-to-left domain name does not start with L, R or AL")
        /// RFC 5893 rule 2: an RTL label holds only R, AL, AN, EN, ES, CS, ET, ON, BN, NSM.
        public static let bidiRTLCharacter = Rule(12, "B2", "right-to-left label holds a character of a disallowed Bidi class")
        /// RFC 5893 rule 3: an RTL label ends with R, AL, EN or AN (then NSM only).
        public static let bidiRTLEnd = Rule(13, "B3", "right-to-left label does not end with R, AL, EN or AN")
        /// RFC 5893 rule 4: an RTL label mixes European (EN) and Arabic-Indic (AN) digits.
        public static let bidiNumberMix = Rule(14, "B4", "right-to-left label mixes European and Arabic-Indic digits")
        /// RFC 5893 rule 5: an LTR label holds only L, EN, ES, CS, ET, ON, BN, NSM.
        public static let bidiLTRCharacter = Rule(15, "B5", "left-to-right label holds a character of a disallowed Bidi class")
        /// RFC 5893 rule 6: an LTR label ends with L or EN (then NSM only).
        public static let bidiLTREnd = Rule(16, "B6", "left-to-right label does not end with L or EN")
        /// §4.2 step 3: the label's Punycode overflows.
        public static let punycodeOverflow = Rule(17, "A3", "label cannot be written in Punycode")
        /// §4.2 step 4 (VerifyDnsLength): the domain name, without a trailing root ".", is
        /// empty or longer than 253 bytes, or the input is longer than Courier processes
        /// (`IDNA.maximumInputLength`).
        public static let domainLength = Rule(18, "A4_1", "domain name empty or longer than 253 bytes")
        /// §4.2 step 4 (VerifyDnsLength): a label is empty (other than a trailing root label)
        /// or longer than 63 bytes.
        public static let labelLength = Rule(19, "A4_2", "label empty or longer than 63 bytes")
    }

    /// The rule broken.
    public let rule: Rule
    /// The label at fault after mapping and normalisation (for a label given as "xn--…", as
    /// given); empty for an empty label or when the whole name is at fault.
    public let label: String
    /// The label's position, 0 for the first.
    public let labelIndex: Int
    /// The offset, in bytes of the input's UTF-8, where the label starts.
    public let offset: Int

    /// Creates an error.
    /// - Parameters:
    ///   - rule: the rule broken.
    ///   - label: the label at fault.
    ///   - labelIndex: its position, 0 for the first.
    ///   - offset: where it starts in the input, in bytes.
    public init(rule: Rule, label: String, labelIndex: Int, offset: Int) {
        self.rule = rule
        self.label = label
        self.labelIndex = labelIndex
        self.offset = offset
    }

    /// The label and the rule, for logs and error messages.
    public var description: String { "label \"\(label)\": \(rule)" }
}
