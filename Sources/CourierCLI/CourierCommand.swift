// `courier`: the command-line face of Courier (design §9). This first version carries `courier
// bench`, the main job: throughput against an embedded loopback server, and the peer-harness
// interface (`courier bench get|download|upload`). The curl-compatible transfer options arrive with
// the session layer.

import ArgumentParser

@main
struct CourierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "A Foundation-free HTTP/1.1 client for Linux, in the shape of AFNetworking.",
        discussion: "The curl-compatible transfer options (URL arguments, -X, -H, -d, -o, ...) come with the session layer; today `courier bench` runs.",
        version: CourierVersion.string,
        subcommands: [Bench.self]
    )

    func run() async throws {
        printError("courier: (2) URL transfers are not available in this build yet; try `courier bench`")
        throw ExitCode(2)
    }
}

enum CourierVersion {
    static let string = "0.1.0"
}
