// Reachability: the status strings, the interface-kind rule, and a live run against this
// machine's rtnetlink (a definite status arrives after start()).

import Testing
import Synchronization
@testable import CourierPosix
@testable import Courier

@Suite("Reachability", .timeLimit(.minutes(1)))
struct ReachabilityTests {
    @Test("the strings are AFStringFromNetworkReachabilityStatus's, adapted to Linux's interface kinds")
    func strings() {
        #expect(ReachabilityStatus.unknown.localizedDescription == "Unknown")
        #expect(ReachabilityStatus.notReachable.localizedDescription == "Not Reachable")
        #expect(ReachabilityStatus.reachable(.wired).localizedDescription == "Reachable via Wired")
        #expect(ReachabilityStatus.reachable(.wireless).localizedDescription == "Reachable via Wireless")
        #expect(ReachabilityStatus.reachable(.other).description == "Reachable")
        #expect(!ReachabilityStatus.unknown.isReachable)
        #expect(!ReachabilityStatus.notReachable.isReachable)
        #expect(ReachabilityStatus.reachable(.other).isReachable)
    }

    /// A table with one usable interface carrying a default route.
    func table(name: String, hardwareType: UInt16) -> InterfaceTable {
        var table = InterfaceTable()
        let link = LinkInfo(index: 2, hardwareType: hardwareType, flags: 0x1043, name: name, operationalState: 6)
        let route = RouteInfo(family: 2, destinationLength: 0, table: 254, routeProtocol: 3, scope: 0, type: 1,
                              outputInterface: 2, gateway: [10, 0, 0, 1], priority: 0, nextHopInterfaces: [])
        let header = NetlinkHeader(length: 0, type: 0, flags: 0, sequence: 0, portID: 0)
        table.apply(NetlinkMessage(header: header, body: .link(link, removed: false)))
        table.apply(NetlinkMessage(header: header, body: .route(route, removed: false)))
        return table
    }

    @Test("wireless when sysfs says so, wired for other Ethernet, other for the rest; no path is not reachable")
    func kinds() {
        #expect(ReachabilityStatus.evaluate(table(name: "wlan0", hardwareType: 1), isWireless: { $0 == "wlan0" })
                == .reachable(.wireless))
        #expect(ReachabilityStatus.evaluate(table(name: "eth0", hardwareType: 1), isWireless: { $0 == "wlan0" })
                == .reachable(.wired))
        #expect(ReachabilityStatus.evaluate(table(name: "ppp0", hardwareType: 512), isWireless: { _ in false })
                == .reachable(.other))
        #expect(ReachabilityStatus.evaluate(table(name: "wwan0", hardwareType: 519), isWireless: { _ in false })
                == .reachable(.other), "a raw-IP cellular modem")
        #expect(ReachabilityStatus.evaluate(InterfaceTable(), isWireless: { _ in true }) == .notReachable)
        #expect(ReachabilityStatus.evaluate(table(name: "lo", hardwareType: 772), isWireless: { _ in false }) == .notReachable)
    }

    @Test("start() produces a definite status from this machine's rtnetlink; stop() keeps it")
    func live() async throws {
        let reachability = Reachability()
        #expect(reachability.status == .unknown)
        let handled = HandlerLog()
        reachability.setStatusChangeHandler { handled.record($0) }
        let updates = reachability.statusUpdates()
        reachability.start()
        reachability.start()   // idempotent
        var status = ReachabilityStatus.unknown
        for await next in updates where next != .unknown {
            status = next
            break
        }
        #expect(status != .unknown)
        #expect(reachability.status == status)
        #expect(reachability.monitoringError == nil)
        #expect(reachability.isReachable == status.isReachable)
        if status.isReachable { #expect(reachability.interfaceName != nil) }
        // The handler is called before the streams are given the status, in the same delivery.
        #expect(handled.statuses == [status])
        reachability.stop()
        #expect(reachability.status == status, "AFNetworking leaves the last status after stopMonitoring")
        reachability.stop()   // idempotent
        let late = reachability.statusUpdates()
        var iterator = late.makeAsyncIterator()
        #expect(await iterator.next() == status, "a new stream starts with the current status")
    }
}

/// Statuses a change handler saw.
final class HandlerLog: Sendable {
    private let seen = Mutex<[ReachabilityStatus]>([])
    func record(_ status: ReachabilityStatus) { seen.withLock { $0.append(status) } }
    var statuses: [ReachabilityStatus] { seen.withLock { $0 } }
}
