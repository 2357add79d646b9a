// PreferredLanguages: the POSIX locale environment turned into BCP 47 language tags, the list
// AFNetworking took from `NSLocale.preferredLanguages`. The CLI reads the environment and passes
// it in; this function reads nothing itself.
//
// Precedence follows GNU gettext: LANGUAGE (a ":"-separated list) first, then the first of
// LC_ALL, LC_MESSAGES, LANG that is set and not empty. Each entry `ll_CC.codeset@modifier` is
// reduced to `ll-CC`; "C" and "POSIX" (no language) are skipped, as is anything that is not
// letters, digits and "-" afterwards (so no environment value can put odd bytes in a header).

/// The preferred languages named by a POSIX locale environment.
///
/// `LANGUAGE=fr:en_US` → `["fr", "en-US"]`; `LANG=de_DE.UTF-8` → `["de-DE"]`; `LANG=C` → `[]`.
/// - Parameter environment: the environment variables.
/// - Returns: language tags, most preferred first, without duplicates.
public func preferredLanguages(environment: [String: String]) -> [String] {
    var entries: [Substring] = []
    if let list = environment["LANGUAGE"], !list.isEmpty {
        entries = list.split(separator: ":")
    }
    if entries.isEmpty {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty { entries = [Substring(value)]; break }
        }
    }
    var tags: [String] = []
    for entry in entries {
        var text = entry
        if let at = text.firstIndex(of: "@") { text = text[..<at] }
        if let dot = text.firstIndex(of: ".") { text = text[..<dot] }
        guard !text.isEmpty, text != "C", text != "POSIX" else { continue }
        let tag = String(text.map { $0 == "_" ? "-" : $0 })
        let valid = tag.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "-") || (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10
        }
        guard valid, tag.utf8.first != UInt8(ascii: "-"), !tags.contains(tag) else { continue }
        tags.append(tag)
    }
    return tags
}
