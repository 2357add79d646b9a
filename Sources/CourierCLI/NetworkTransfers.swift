// NetworkTransfers: the transfers themselves, on one Session (connections reused between URLs).
// Waits for the Session layer (issue 5); until then a transfer fails with a clear message.

import Courier
import CourierBytes

final class NetworkTransfers: Sendable {
    let options: TransferOptions
    let settings: TransferSettings

    init(options: TransferOptions, settings: TransferSettings) {
        self.options = options
        self.settings = settings
    }

    func perform(_ request: HTTPRequest, index: Int, values: inout WriteOutValues) async throws(CLIError) {
        throw CLIError(2, "network transfers are not available in this build yet; --offline works")
    }

    func finish() async {}
}
