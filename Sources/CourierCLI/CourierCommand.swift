// `courier`: the command-line face of Courier (design §9). `courier [options] URL [URL ...]` is the
// curl-compatible transfer command (TransferOptions, TransferRunner); `courier bench` runs the
// throughput workloads (Bench.swift).
//
// Errors and exit codes are curl's: every failure prints one line `courier: (CODE) message` on
// stderr (unless -s without -S) and the process exits with CODE. ArgumentParser's own usage
// errors are turned into the same shape with code 2; --help and --version print to stdout and
// exit 0.

import ArgumentParser
import Courier
import CourierPosix

@main
enum CourierMain {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "bench" {
            await BenchCommand.main(arguments)
            return
        }
        // A lone "--" ends the options as in curl; ArgumentParser already understands it.
        let options: TransferOptions
        do {
            options = try TransferOptions.parse(arguments)
        } catch {
            let code = TransferOptions.exitCode(for: error)
            if code == .success {
                writeOutOrIgnore(TransferOptions.fullMessage(for: error) + "\n")
                ProcessControl.exit(0)
            }
            printError("courier: (2) " + usageMessage(for: error))
            ProcessControl.exit(2)
        }
        arguments.removeAll()
        let code = await TransferRunner(options: options).run()
        ProcessControl.exit(code)
    }

    /// ArgumentParser's message on one line, without its "Error: " prefix.
    static func usageMessage(for error: any Error) -> String {
        var message = TransferOptions.message(for: error)
        if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
        let firstLine = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? message
        return firstLine.isEmpty ? "bad usage; try 'courier --help'" : firstLine + "; try 'courier --help'"
    }

    private static func writeOutOrIgnore(_ text: String) {
        try? StandardStreams.writeOutput(text)
    }
}

/// `courier bench` and its subcommands, under the root name so help reads `courier bench ...`.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "A Foundation-free HTTP/1.1 client for Linux, in the shape of AFNetworking.",
        version: "courier \(CourierVersion.version)",
        subcommands: [Bench.self]
    )
}
