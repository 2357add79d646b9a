// CLIError: a failure of the command-line tool, as curl reports one — an exit code from curl's
// table (design §9) and a one-line message printed as `courier: (CODE) message`.

/// A failure with curl's exit code and a message for people.
struct CLIError: Error, Sendable {
    /// The exit code (curl's numbering).
    var code: Int32
    /// One line, without the `courier: (CODE) ` prefix.
    var message: String

    init(_ code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The line printed on stderr.
    var line: String { "courier: (\(code)) \(message)" }

    /// curl's 23 for output that cannot be written (stdout closed, disk full), in curl's words.
    static let writeFailure = CLIError(23, "Failure writing output to destination")

    /// Usage error (2).
    static func usage(_ message: String) -> CLIError { CLIError(2, message) }
}
