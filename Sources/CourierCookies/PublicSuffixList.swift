// PublicSuffixList: the rules of https://publicsuffix.org/list/ and its algorithm
// (publicsuffix.org "Formal algorithm"), used to refuse Domain attributes that name a public
// suffix ("co.uk", "github.io"): layered-cookies "Store a Cookie", the domain-cookie check libpsl
// does for curl.
//
// The file format: one rule per line; "//" starts a comment line; a rule ends at the first
// whitespace; "*." is a wildcard label, "!" an exception. Both the ICANN and the private sections
// count (as in browsers and libpsl for cookies). Rules in Unicode are stored in their ASCII form
// (UTS #46 ToASCII), since hosts reach the cookie store in ASCII.
//
// The algorithm: the rules that match a domain are those whose labels equal the domain's
// rightmost labels ("*" matches any one label); an exception rule wins over all others; otherwise
// the rule with the most labels; with no match, the implicit rule "*" (the top-level label). An
// exception's public suffix is the rule without its leftmost label. The registrable domain is the
// public suffix plus one more label.
//
// Pure: the text is given (Debian's `publicsuffix` package puts it at
// /usr/share/publicsuffix/public_suffix_list.dat; `Courier` reads the file on its file thread).

import CourierBytes
import CourierURL

/// A parsed public suffix list.
public struct PublicSuffixList: Sendable {
    /// Where Debian's `publicsuffix` package installs the list.
    public static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    private var rules: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// The number of rules read.
    public private(set) var ruleCount = 0

    /// Parses a list in the publicsuffix.org format (the text of `public_suffix_list.dat`).
    /// Lines that are neither rules nor comments are skipped; a Unicode rule that is not a valid
    /// international name is skipped.
    /// - Parameter text: the list.
    public init(parsing text: String) {
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            guard let ruleText = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first,
                  !ruleText.hasPrefix("//") else { continue }
            var rule = Substring(ruleText)
            var kind = 0  // 0 plain, 1 wildcard, 2 exception
            if rule.hasPrefix("!") {
                kind = 2
                rule = rule.dropFirst()
            } else if rule.hasPrefix("*.") {
                kind = 1
                rule = rule.dropFirst(2)
            }
            guard !rule.isEmpty, let ascii = PublicSuffixList.asciiForm(String(rule)) else { continue }
            switch kind {
            case 1: wildcards.insert(ascii)
            case 2: exceptions.insert(ascii)
            default: rules.insert(ascii)
            }
            ruleCount += 1
        }
    }

    /// The public suffix of a domain.
    /// - Parameter domain: a host name, lower case ASCII (a Unicode name is converted), without a
    ///   trailing dot.
    /// - Returns: the public suffix: the domain itself when it is one; nil for an empty name or one
    ///   with an empty label.
    public func publicSuffix(of domain: String) -> String? {
        guard let domain = PublicSuffixList.asciiForm(domain) else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard !labels.isEmpty, labels.allSatisfy({ !$0.isEmpty }) else { return nil }
        // Suffixes from the longest (the whole domain) to the shortest (the last label).
        var best = 1  // the implicit "*" rule: the last label
        for count in stride(from: labels.count, through: 1, by: -1) {
            let suffix = labels[(labels.count - count)...].joined(separator: ".")
            if exceptions.contains(suffix) {
                // An exception wins: its public suffix is the rule without its first label.
                return labels[(labels.count - count + 1)...].joined(separator: ".")
            }
            if count > best && rules.contains(suffix) { best = count }
            // "*.parent" matches this suffix when its parent is the rest.
            if count > best && count >= 2 && wildcards.contains(labels[(labels.count - count + 1)...].joined(separator: ".")) {
                best = count
            }
        }
        return labels[(labels.count - best)...].joined(separator: ".")
    }

    /// Whether a domain is itself a public suffix (no one may set a domain cookie for it).
    /// - Parameter domain: a host name, lower case ASCII.
    /// - Returns: true when the domain is its own public suffix, or is not a valid name.
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard let suffix = publicSuffix(of: domain) else { return true }
        return suffix == PublicSuffixList.asciiForm(domain)
    }

    /// The registrable domain: the public suffix plus one label ("example.co.uk" for
    /// "www.example.co.uk").
    /// - Parameter domain: a host name (Unicode names are converted to ASCII).
    /// - Returns: the registrable domain in ASCII, or nil when the domain is a public suffix or
    ///   not a valid name.
    public func registrableDomain(of domain: String) -> String? {
        guard let ascii = PublicSuffixList.asciiForm(domain), let suffix = publicSuffix(of: ascii), suffix != ascii else {
            return nil
        }
        let labels = ascii.split(separator: ".", omittingEmptySubsequences: false)
        let suffixLabels = suffix.split(separator: ".").count
        return labels[(labels.count - suffixLabels - 1)...].joined(separator: ".")
    }

    /// Lower-case ASCII; Unicode converted with UTS #46 ToASCII; nil when that fails.
    static func asciiForm(_ text: String) -> String? {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return ASCIICase.lowercased(text) }
        return try? IDNA.toASCII(text)
    }
}

/// The rule used when no list is given (curl's without libpsl): a domain with no dot inside it —
/// a top-level label such as "com", or "localhost" — is treated as a public suffix.
enum DotRule {
    static func isPublicSuffix(_ domain: String) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count < 2 || labels.contains(where: \.isEmpty)
    }
}
