// `courier`: the command-line face of Courier (design §9). `courier [options] URL [URL ...]` is the
// curl-compatible transfer command (TransferOptions, TransferRunner); `courier bench` runs the
// throughput workloads (Bench.swift). Both parse curl's grammar from a declarative option table
// (CommandLineParser): no package dependency, nothing of Foundation.
//
// Errors and exit codes are curl's: every failure prints one line `courier: (CODE) message` on
// stderr (unless -s without -S) and the process exits with CODE; usage errors are 2. --help and
// --version print to stdout and exit 0.

import Courier
import CourierPosix

@main
enum CourierMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "bench" {
            await Bench.main(Array(arguments.dropFirst()))
        }
        let groups: [TransferOptions]
        do {
            groups = try TransferOptions.parse(arguments)
        } catch {
            printError("courier: (\(error.code)) \(error.message)" + (error.code == 2 ? "; try 'courier --help'" : ""))
            ProcessControl.exit(error.code)
        }
        let global = groups[0].global
        for warning in global.configWarnings { StandardStreams.writeError(ConfigFile.wrappedWarning(warning + "\n")) }
        for warning in global.traceWarnings { printError("Warning: " + warning) }
        if global.showsHelp {
            try? StandardStreams.writeOutput(TransferOptions.helpText)
            ProcessControl.exit(0)
        }
        if let shell = global.completionShell {
            guard let script = Completions.script(for: shell) else {
                printError("courier: (2) --generate-completion-script: bash, zsh or fish, not \"\(printable(shell))\"")
                ProcessControl.exit(2)
            }
            try? StandardStreams.writeOutput(script)
            ProcessControl.exit(0)
        }
        if global.showsManPage {
            try? StandardStreams.writeOutput(Completions.manPage())
            ProcessControl.exit(0)
        }
        if global.showsVersion {
            try? StandardStreams.writeOutput(CourierCLIInfo.versionText)
            ProcessControl.exit(0)
        }
        if global.traceTime && global.traceKind != nil { await TraceClock.prepare() }
        let code = await TransferRunner(groups: groups).run()
        await global.trace?.finish()
        ProcessControl.exit(code)
    }
}
