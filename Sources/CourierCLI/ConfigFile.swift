// ConfigFile: curl's `-K, --config FILE` (tool_parsecfg.c of curl 7.88), read into the same
// ordered argument list the command line gives, at the place of the -K option, so options from a
// file mix with the command line's exactly as curl mixes them (later ones win, -: starts a group).
//
// The syntax, line by line:
// - leading white space is skipped; a line that then starts with `#`, `/`, `*` or is empty is
//   a comment;
// - the option is the word up to white space, or up to `=` or `:` when it does not start with a
//   dash (`url = X`, `header: X`, `--header X`, `-H X`, `silent`); a name without dashes is a
//   long name (`s` is a prefix of a long name, not -s);
// - white space (and, without dashes, `=` and `:`) separate it from the parameter;
// - a parameter in double quotes runs to the next unescaped quote: `\t \n \r \v` are those
//   bytes, `\` before anything else is that character; what follows the closing quote is ignored;
// - an unquoted parameter ends at white space; anything after it but a comment is warned about
//   (`uses unquoted whitespace in the line that may cause side-effects!`);
// - a problem with one line (an unknown option, a missing parameter, a parameter a flag does not
//   take) is a warning `FILE:LINE: warning: 'OPTION' REASON` and the rest is read, as in curl;
//   a file that cannot be read is exit 26. A -K line reads another file there.

import CourierBytes
import CourierPosix

/// One option line of a config file.
struct ConfigEntry: Sendable, Equatable {
    /// The option as written (`--header`, `url`, `-sS`).
    let option: String
    /// Its parameter (nil: none on the line).
    let parameter: String?
    /// The line number, from 1.
    let line: Int
    /// Whether more followed an unquoted parameter on the line (curl warns).
    let trailingText: Bool
}

enum ConfigFile {
    /// How deep -K lines may read further files (curl has no limit and overflows its stack).
    static let maximumDepth = 16

    /// The option lines of a config file's bytes.
    static func entries(_ bytes: [UInt8]) -> [ConfigEntry] {
        var result: [ConfigEntry] = []
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            lineNumber += 1
            if let entry = entry(bytes[start..<end], line: lineNumber) { result.append(entry) }
            start = end + 1
        }
        return result
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    private static func entry(_ line: ArraySlice<UInt8>, line number: Int) -> ConfigEntry? {
        var i = line.startIndex
        let end = line.endIndex
        while i < end && isSpace(line[i]) { i += 1 }
        guard i < end else { return nil }
        switch line[i] {
        case UInt8(ascii: "#"), UInt8(ascii: "/"), UInt8(ascii: "*"), 0: return nil
        default: break
        }
        let dashed = line[i] == UInt8(ascii: "-")
        func isSeparator(_ byte: UInt8) -> Bool { !dashed && (byte == UInt8(ascii: "=") || byte == UInt8(ascii: ":")) }
        let optionStart = i
        while i < end && !isSpace(line[i]) && !isSeparator(line[i]) { i += 1 }
        let option = String(decoding: line[optionStart..<i], as: UTF8.self)
        if i < end { i += 1 }
        while i < end && (isSpace(line[i]) || isSeparator(line[i])) { i += 1 }
        if i < end && line[i] == UInt8(ascii: "\"") {
            i += 1
            var value: [UInt8] = []
            while i < end && line[i] != UInt8(ascii: "\"") {
                if line[i] == UInt8(ascii: "\\") {
                    i += 1
                    guard i < end else { break }
                    switch line[i] {
                    case UInt8(ascii: "t"): value.append(0x09)
                    case UInt8(ascii: "n"): value.append(0x0A)
                    case UInt8(ascii: "r"): value.append(0x0D)
                    case UInt8(ascii: "v"): value.append(0x0B)
                    default: value.append(line[i])
                    }
                    i += 1
                } else {
                    value.append(line[i])
                    i += 1
                }
            }
            return ConfigEntry(option: option, parameter: String(decoding: value, as: UTF8.self), line: number, trailingText: false)
        }
        let parameterStart = i
        while i < end && !isSpace(line[i]) { i += 1 }
        let parameter = line[parameterStart..<i]
        var trailing = false
        if i < end {
            i += 1
            while i < end && isSpace(line[i]) { i += 1 }
            if i < end && line[i] != UInt8(ascii: "#") { trailing = true }
        }
        return ConfigEntry(option: option, parameter: parameter.isEmpty ? nil : String(decoding: parameter, as: UTF8.self),
                           line: number, trailingText: trailing)
    }

    /// The arguments with every -K option replaced by the options of its file (recursively).
    /// - Parameters:
    ///   - parsed: the command line, classified.
    ///   - table: the option table.
    ///   - warnings: curl's warnings, in order, for the lines with a problem (none after a -s).
    /// - Throws: `UsageError` with code 26 for a file that cannot be read (curl's words).
    static func expand<Key>(_ parsed: [ParsedArgument<Key>], table: OptionTable<Key>, warnings: inout [String],
                            configKey: Key, silentKey: Key, depth: Int = 0,
                            read: (String) throws(UsageError) -> [UInt8] = ConfigFile.read) throws(UsageError) -> [ParsedArgument<Key>] {
        var silent = false
        return try expand(parsed, table: table, warnings: &warnings, configKey: configKey, silentKey: silentKey, depth: depth,
                          silent: &silent, read: read)
    }

    private static func expand<Key>(_ parsed: [ParsedArgument<Key>], table: OptionTable<Key>, warnings: inout [String],
                                    configKey: Key, silentKey: Key, depth: Int, silent: inout Bool,
                                    read: (String) throws(UsageError) -> [UInt8]) throws(UsageError) -> [ParsedArgument<Key>] {
        guard parsed.contains(where: { if case .option(let o) = $0 { return o.key == configKey || o.key == silentKey } else { return false } }) else {
            return parsed
        }
        var result: [ParsedArgument<Key>] = []
        result.reserveCapacity(parsed.count)
        for argument in parsed {
            guard case .option(let option) = argument else {
                result.append(argument)
                continue
            }
            if option.key == silentKey { silent = option.isOn }
            guard option.key == configKey, let path = option.value else {
                result.append(argument)
                continue
            }
            guard depth < maximumDepth else {
                throw UsageError(message: "option -K: config files nested more than \(maximumDepth) deep (\(path))", code: 26)
            }
            // curl calls standard input "-" until a line has a problem, then "<stdin>" from there on.
            var name = path
            for entry in entries(try read(path)) {
                if entry.trailingText && !silent {
                    warnings.append("\(name):\(entry.line): warning: '\(entry.option)' uses unquoted whitespace in the line that may cause side-effects!")
                }
                let (arguments, problem) = table.configOption(entry.option, parameter: entry.parameter)
                let expanded = try expand(arguments, table: table, warnings: &warnings, configKey: configKey, silentKey: silentKey,
                                          depth: depth + 1, silent: &silent, read: read)
                result += expanded
                if problem != nil && path == "-" { name = "<stdin>" }
                if let problem, !silent { warnings.append("\(name):\(entry.line): warning: '\(entry.option)' \(problem)") }
            }
        }
        return result
    }

    /// A config file's bytes ("-": standard input).
    static func read(_ path: String) throws(UsageError) -> [UInt8] {
        do {
            if path == "-" { return try StandardStreams.readInput().readableBytesArray }
            return try readWholeFile(path).readableBytesArray
        } catch {
            throw UsageError(message: "option -K: error encountered when reading a file: cannot read config from '\(path)'", code: 26)
        }
    }

    /// curl's warning text as it prints it: "Warning: " before each piece of at most 70
    /// characters, cut after the last space that fits (tool_msgs.c).
    static func wrappedWarning(_ text: String) -> String {
        let width = 79 - "Warning: ".count
        var rest = Array(text.utf8)
        var out = ""
        while !rest.isEmpty {
            out += "Warning: "
            if rest.count > width {
                var cut = width - 1
                while cut > 0 && !isSpace(rest[cut]) { cut -= 1 }
                if cut == 0 { cut = width - 1 }
                out += String(decoding: rest[...cut], as: UTF8.self) + "\n"
                rest.removeFirst(cut + 1)
            } else {
                out += String(decoding: rest, as: UTF8.self)
                rest = []
            }
        }
        return out
    }
}

extension OptionTable {
    /// One option line of a config file as arguments (curl's getparameter): a long name with or
    /// without `--`, or a cluster of short options after one `-`; the line's parameter is the
    /// value of the option that takes one.
    /// - Returns: the arguments (empty when the option is unusable) and the problem, in curl's
    ///   words (`is unknown`, `requires parameter`, `had unsupported trailing garbage`).
    func configOption(_ option: String, parameter: String?) -> (arguments: [ParsedArgument<Key>], problem: String?) {
        var usedParameter = false
        var arguments: [ParsedArgument<Key>] = []
        if option.hasPrefix("-") && !option.hasPrefix("--") {
            var rest = option.dropFirst()
            if rest.isEmpty { return ([], "is unknown") }
            while let c = rest.first {
                rest = rest.dropFirst()
                guard let spec = short(c) else { return (arguments, "is unknown") }
                let spelling = "-\(c)"
                if spec.takesValue {
                    let value: String
                    if !rest.isEmpty {
                        value = String(rest)
                    } else {
                        guard let parameter else { return (arguments, "requires parameter") }
                        value = parameter
                        usedParameter = true
                    }
                    arguments.append(.option(ParsedOption(key: spec.key, value: value, isOn: true, spelling: spelling)))
                    break
                }
                arguments.append(.option(ParsedOption(key: spec.key, value: nil, isOn: true, spelling: spelling)))
            }
        } else {
            let name = option.hasPrefix("--") ? option.dropFirst(2) : Substring(option)
            let spelling = "--" + name
            let found: (OptionSpec<Key>, isOn: Bool)
            do { found = try long(name, spelling: spelling) } catch { return ([], error.reason) }
            if found.0.takesValue {
                guard let parameter else { return ([], "requires parameter") }
                arguments.append(.option(ParsedOption(key: found.0.key, value: parameter, isOn: true, spelling: spelling)))
                usedParameter = true
            } else {
                arguments.append(.option(ParsedOption(key: found.0.key, value: nil, isOn: found.isOn, spelling: spelling)))
            }
        }
        if let parameter, !parameter.isEmpty, !usedParameter { return (arguments, "had unsupported trailing garbage") }
        return (arguments, nil)
    }
}
