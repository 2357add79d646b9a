// CommandLineParser: curl's command-line grammar, driven by one declarative table of options
// (`OptionSpec`). The table is the single source of truth for a command: parsing, `--help`, and
// what later work builds from it (config files for -K, per-URL groups for -:/--next, shell
// completions and the man page) all read the same entries.
//
// The grammar (curl's, plus `--name=value`):
// - `-abc` is a cluster of short options; a short option that takes a value takes the rest of its
//   argument (`-XPOST`, `-sXPOST`) or, when nothing is left, the next argument;
// - `--name value` and `--name=value`; a value is always the next argument, even when it starts
//   with "-" (`-H -x` sends a field named "-x");
// - a flag can be switched off with `--no-name` (curl's boolean options);
// - an unambiguous prefix of a long name is that option (`--verb` is `--verbose`), as in curl;
// - `--` ends the options: every later argument is positional, "-" alone is positional;
// - options and positional arguments mix in any order.
//
// The result is the ordered list of what was given (`ParsedArgument`): nothing is merged at parse
// time, so the order between different options survives (curl joins -d and --data-urlencode in
// command-line order) and a later grouping step (-:/--next) or a config file can be spliced in.
// `OptionValues` then applies each option's repetition rule (last wins, or all accumulate).
//
// Parsing is linear in the number of arguments: a dictionary per name kind, no removal from the
// middle of an array (swift-argument-parser's `SplitArguments.remove(subrange:)` made 10,000 URLs
// quadratic).

/// How repeated occurrences of an option combine.
enum Repetition: Sendable, Equatable {
    /// The last occurrence wins (-X, -m, -w, ...).
    case lastWins
    /// Every occurrence counts, in order (-H, -d, -F, -o, ...).
    case accumulates
}

/// One option of a command: its names, whether it takes a value, how repeats combine, its help.
struct OptionSpec<Key: Hashable & Sendable>: Sendable {
    /// What the option is, for the code that reads the result.
    let key: Key
    /// The one-character name (`-X`), if any.
    let short: Character?
    /// The long name without dashes (`request` for `--request`).
    let long: String
    /// The value's name in help (`METHOD`); nil for a flag.
    let valueName: String?
    /// How repeats combine.
    let repetition: Repetition
    /// The help section it is listed under.
    let section: String
    /// One line of help.
    let help: String

    /// Whether the option takes a value.
    var takesValue: Bool { valueName != nil }

    init(_ key: Key, short: Character? = nil, long: String, value: String? = nil, _ repetition: Repetition = .lastWins,
         section: String, help: String) {
        self.key = key
        self.short = short
        self.long = long
        self.valueName = value
        self.repetition = repetition
        self.section = section
        self.help = help
    }

    /// `-X, --request METHOD` or `    --data-binary DATA`, as help shows it.
    var synopsis: String {
        var text = short.map { "-\($0), " } ?? "    "
        text += "--" + long
        if let valueName { text += " " + valueName }
        return text
    }
}

/// A usage error: curl's wording, exit code 2 (26 for a -K file that cannot be read).
struct UsageError: Error, Sendable, Equatable {
    /// One line, without the `courier: (2) ` prefix.
    let message: String
    /// What is wrong, without the option (`is unknown`): the words of curl's config warnings.
    var reason: String
    /// The exit code.
    var code: Int32

    init(message: String, reason: String? = nil, code: Int32 = 2) {
        self.message = message
        self.reason = reason ?? message
        self.code = code
    }

    static func unknown(_ spelling: String) -> UsageError { UsageError(message: "option \(spelling): is unknown", reason: "is unknown") }
    static func ambiguous(_ spelling: String) -> UsageError { UsageError(message: "option \(spelling): is ambiguous", reason: "is ambiguous") }
    static func requiresParameter(_ spelling: String) -> UsageError {
        UsageError(message: "option \(spelling): requires parameter", reason: "requires parameter")
    }
    static func takesNoValue(_ spelling: String) -> UsageError { UsageError(message: "option \(spelling): takes no value", reason: "takes no value") }
}

/// One option occurrence as it was given.
struct ParsedOption<Key: Hashable & Sendable>: Sendable {
    /// Which option.
    let key: Key
    /// Its value, for an option that takes one.
    let value: String?
    /// False for a flag given as `--no-name`.
    let isOn: Bool
    /// How it was written (`-X`, `--request`, `--no-silent`), for messages.
    let spelling: String
}

/// One command-line argument, classified.
enum ParsedArgument<Key: Hashable & Sendable>: Sendable {
    /// An option with its value.
    case option(ParsedOption<Key>)
    /// Anything else (a URL, a subcommand's operand).
    case positional(String)
}

/// A command's option table with its name indexes.
struct OptionTable<Key: Hashable & Sendable>: Sendable {
    /// The options in help order.
    let specs: [OptionSpec<Key>]
    private let longIndex: [String: Int]
    private let shortIndex: [Character: Int]
    private let keyIndex: [Key: Int]

    /// - Precondition: no two options share a name or a key.
    init(_ specs: [OptionSpec<Key>]) {
        self.specs = specs
        var long: [String: Int] = [:]
        var short: [Character: Int] = [:]
        var keys: [Key: Int] = [:]
        for (index, spec) in specs.enumerated() {
            precondition(long.updateValue(index, forKey: spec.long) == nil, "--\(spec.long) is in the table twice")
            if let c = spec.short { precondition(short.updateValue(index, forKey: c) == nil, "-\(c) is in the table twice") }
            precondition(keys.updateValue(index, forKey: spec.key) == nil, "\(spec.key) is in the table twice")
        }
        longIndex = long
        shortIndex = short
        keyIndex = keys
    }

    /// The entry for `key`.
    func spec(_ key: Key) -> OptionSpec<Key> { specs[keyIndex[key]!] }

    /// The option named `--name`: exact, `--no-FLAG`, or an unambiguous prefix (curl's rules).
    /// - Returns: the entry and whether it is switched on.
    func long(_ name: Substring, spelling: String) throws(UsageError) -> (OptionSpec<Key>, isOn: Bool) {
        if let index = longIndex[String(name)] { return (specs[index], true) }
        if name.hasPrefix("no-"), let index = longIndex[String(name.dropFirst(3))], !specs[index].takesValue {
            return (specs[index], false)
        }
        guard !name.isEmpty else { throw .unknown(spelling) }
        var found: Int?
        for (index, spec) in specs.enumerated() where spec.long.hasPrefix(name) {
            guard found == nil else { throw .ambiguous(spelling) }
            found = index
        }
        guard let found else { throw .unknown(spelling) }
        return (specs[found], true)
    }

    /// The option named `-c`.
    func short(_ c: Character) -> OptionSpec<Key>? { shortIndex[c].map { specs[$0] } }

    /// Classifies `arguments` by curl's grammar (the rules at the top of this file).
    /// - Parameter arguments: the arguments after the command's name.
    /// - Returns: every option and positional argument, in order.
    /// - Throws: `UsageError` for an unknown or ambiguous option, a missing value, or a value given
    ///   to a flag.
    func parse(_ arguments: [String]) throws(UsageError) -> [ParsedArgument<Key>] {
        var result: [ParsedArgument<Key>] = []
        result.reserveCapacity(arguments.count)
        var index = 0
        var optionsEnded = false
        func nextValue(for spelling: String) throws(UsageError) -> String {
            guard index < arguments.count else { throw .requiresParameter(spelling) }
            defer { index += 1 }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                result.append(.positional(argument))
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let equals = body.firstIndex(of: "=")
                let name = equals.map { body[..<$0] } ?? body
                let spelling = "--" + name
                let (spec, isOn) = try long(name, spelling: spelling)
                var value: String?
                if spec.takesValue {
                    if let equals { value = String(body[body.index(after: equals)...]) } else { value = try nextValue(for: spelling) }
                } else if equals != nil {
                    throw .takesNoValue(spelling)
                }
                result.append(.option(ParsedOption(key: spec.key, value: value, isOn: isOn, spelling: spelling)))
                continue
            }
            // A cluster of short options: flags, then at most one option that takes the rest.
            var rest = argument.dropFirst()
            while let c = rest.first {
                rest = rest.dropFirst()
                guard let spec = short(c) else { throw .unknown("-\(c)") }
                let spelling = "-\(c)"
                if spec.takesValue {
                    let value = rest.isEmpty ? try nextValue(for: argument) : String(rest)
                    result.append(.option(ParsedOption(key: spec.key, value: value, isOn: true, spelling: spelling)))
                    break
                }
                result.append(.option(ParsedOption(key: spec.key, value: nil, isOn: true, spelling: spelling)))
            }
        }
        return result
    }

    /// The options part of `--help`: one line per option under its section, in table order, the
    /// help text in a column; repeatable options say so.
    func helpText() -> String {
        let width = min(36, (specs.map { $0.synopsis.count }.max() ?? 0) + 3)
        var text = ""
        var section: String?
        for spec in specs {
            if spec.section != section {
                section = spec.section
                text += (text.isEmpty ? "" : "\n") + spec.section + ":\n"
            }
            var line = " " + spec.synopsis
            line += line.count < width ? String(repeating: " ", count: width - line.count) : "  "
            line += spec.help
            if spec.repetition == .accumulates { line += " (repeatable)" }
            text += line + "\n"
        }
        return text
    }
}

/// The values of one parse, by each option's repetition rule.
struct OptionValues<Key: Hashable & Sendable>: Sendable {
    private var values: [Key: [String]] = [:]
    private var flags: [Key: Bool] = [:]
    /// Every value of the options that accumulate, with its position among all arguments (for
    /// options whose relative order matters: curl's -d, --data-urlencode, --json, ...).
    private(set) var ordered: [(key: Key, value: String, position: Int)] = []
    /// The positional arguments, in order.
    private(set) var positionals: [String] = []

    init(_ parsed: [ParsedArgument<Key>], table: OptionTable<Key>) {
        for (position, argument) in parsed.enumerated() {
            switch argument {
            case .positional(let text):
                positionals.append(text)
            case .option(let option):
                guard let value = option.value else {
                    flags[option.key] = option.isOn
                    continue
                }
                if table.spec(option.key).repetition == .accumulates {
                    values[option.key, default: []].append(value)
                    ordered.append((option.key, value, position))
                } else {
                    values[option.key] = [value]
                }
            }
        }
    }

    /// Whether a flag is on (the last of `-s` / `--no-silent` wins).
    func flag(_ key: Key) -> Bool { flags[key] ?? false }

    /// The value of a last-wins option.
    func value(_ key: Key) -> String? { values[key]?.last }

    /// Every value of an accumulating option, in order.
    func all(_ key: Key) -> [String] { values[key] ?? [] }
}
