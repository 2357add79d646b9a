// RouteSync and InterfaceTable: the dump sequence on captured bytes, notifications, retries,
// overruns, and the path rule (default route first, global address next, loopback never); then
// the RouteMonitor against this machine's real rtnetlink.

import Testing
@testable import CourierPosix

extension PosixTests {
    @Suite("Route sync and the interface table")
    struct RouteSyncTests {
        /// A machine that has taken the captured dumps: synced.
        func syncedFromFixtures() throws -> RouteSync {
            var sync = RouteSync()
            #expect(sync.start().requests == [NetlinkParser.dumpRequest(.links, sequence: 1)])
            var output = RouteSync.Output()
            for datagram in NetlinkFixtures.linkDump { output = sync.received(try NetlinkParser.parse(hexBytes(datagram))) }
            #expect(output.requests == [NetlinkParser.dumpRequest(.addresses, sequence: 2)])
            #expect(!output.tableChanged && !sync.isSynced)
            for datagram in NetlinkFixtures.addressDump { output = sync.received(try NetlinkParser.parse(hexBytes(datagram))) }
            #expect(output.requests == [NetlinkParser.dumpRequest(.routes, sequence: 3)])
            for datagram in NetlinkFixtures.routeDump { output = sync.received(try NetlinkParser.parse(hexBytes(datagram))) }
            #expect(output.requests.isEmpty)
            #expect(output.tableChanged, "the first synced table is reported")
            #expect(sync.isSynced)
            return sync
        }

        func apply(_ bytes: [UInt8], to sync: inout RouteSync) throws -> RouteSync.Output {
            sync.received(try NetlinkParser.parse(bytes))
        }

        @Test("links, then addresses, then routes; the captured machine is reachable through eth0's default route")
        func dumpSequence() throws {
            let sync = try syncedFromFixtures()
            #expect(sync.table.interfaces.count == 4)
            #expect(sync.table.addressCount == 5)
            #expect(sync.table.defaultRouteCount == 2)
            let path = try #require(sync.table.primaryPath())
            #expect(path.interface.name == "eth0")
            #expect(path.reason == .defaultRoute)
        }

        @Test("loopback alone is never a path, whatever its addresses and routes")
        func loopbackAlone() throws {
            let sync = try syncedFromFixtures()
            let onlyLoopback = sync.table.filtered { $0.name == "lo" }
            #expect(onlyLoopback.interfaces.count == 1)
            #expect(onlyLoopback.addressCount == 2)
            #expect(onlyLoopback.primaryPath() == nil)
            var table = InterfaceTable()
            table.apply(try NetlinkParser.parse(NetlinkBuilder.link(index: 1, name: "lo", flags: 0x49, type: 772))[0])
            table.apply(try NetlinkParser.parse(NetlinkBuilder.address(index: 1, [127, 0, 0, 1], prefix: 8, scope: 0))[0])
            table.apply(try NetlinkParser.parse(NetlinkBuilder.defaultRoute(oif: 1, gateway: [127, 0, 0, 1]))[0])
            #expect(table.primaryPath() == nil, "even a global-scope address and a default route on lo")
        }

        @Test("eth0 going down takes its routes (no RTM_DELROUTE comes for IPv4); back up, its address is the path until a route returns")
        func linkDownAndUp() throws {
            var sync = try syncedFromFixtures()
            var output = try apply(NetlinkBuilder.link(index: 4, name: "eth0", flags: 0x1002), to: &sync)
            #expect(output.tableChanged)
            #expect(sync.table.defaultRouteCount == 0)
            #expect(sync.table.primaryPath() == nil)
            output = try apply(NetlinkBuilder.link(index: 4, name: "eth0", flags: 0x11043), to: &sync)
            #expect(output.tableChanged)
            #expect(sync.table.primaryPath()?.reason == .globalAddress)
            output = try apply(NetlinkBuilder.defaultRoute(oif: 4, gateway: [192, 0, 2, 1]), to: &sync)
            #expect(output.tableChanged)
            #expect(sync.table.primaryPath()?.reason == .defaultRoute)
            output = try apply(NetlinkBuilder.defaultRoute(oif: 4, gateway: [192, 0, 2, 1]), to: &sync)
            #expect(!output.tableChanged, "a repeated notification changes nothing")
            output = try apply(NetlinkBuilder.defaultRoute(oif: 4, gateway: [192, 0, 2, 1], removed: true), to: &sync)
            #expect(output.tableChanged)
            #expect(sync.table.primaryPath()?.reason == .globalAddress)
        }

        @Test("up without IFF_RUNNING (no carrier) is not usable; removing the last global address leaves no path")
        func carrierAndAddresses() throws {
            var sync = try syncedFromFixtures()
            _ = try apply(NetlinkBuilder.link(index: 4, name: "eth0", flags: 0x1003), to: &sync)
            #expect(sync.table.primaryPath() == nil, "UP without RUNNING")
            _ = try apply(NetlinkBuilder.link(index: 4, name: "eth0", flags: 0x11043), to: &sync)
            // Routes were kept (the interface stayed administratively up).
            #expect(sync.table.primaryPath()?.reason == .defaultRoute)
            _ = try apply(NetlinkBuilder.defaultRoute(oif: 4, gateway: [192, 0, 2, 1], removed: true), to: &sync)
            _ = try apply(NetlinkBuilder.defaultRoute(oif: 4, gateway: [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
                                                      priority: 1024, removed: true), to: &sync)
            #expect(sync.table.primaryPath()?.reason == .globalAddress)
            _ = try apply(NetlinkBuilder.address(index: 4, [192, 0, 2, 2], prefix: 24, removed: true), to: &sync)
            #expect(sync.table.primaryPath()?.reason == .globalAddress, "fd00::2 is global too")
            _ = try apply(NetlinkBuilder.address(index: 4, [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], prefix: 64,
                                                 removed: true), to: &sync)
            #expect(sync.table.primaryPath() == nil, "only the link-scope fe80:: address is left")
        }

        @Test("the lowest metric wins, then IPv4, then the lower index; tentative addresses do not count")
        func pathPreference() throws {
            var table = InterfaceTable()
            for bytes in [NetlinkBuilder.link(index: 2, name: "eth0", flags: 0x41 | 0x1000),
                          NetlinkBuilder.link(index: 3, name: "wlan0", flags: 0x41 | 0x1000),
                          NetlinkBuilder.link(index: 9, name: "tun0", flags: 0x41, type: 65534),
                          NetlinkBuilder.defaultRoute(oif: 2, gateway: [10, 0, 0, 1], priority: 600),
                          NetlinkBuilder.defaultRoute(oif: 3, gateway: [10, 0, 1, 1], priority: 100)] {
                table.apply(try NetlinkParser.parse(bytes)[0])
            }
            #expect(table.primaryPath()?.interface.name == "wlan0")
            table.apply(try NetlinkParser.parse(NetlinkBuilder.defaultRoute(oif: 9, gateway: [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
                                                                             priority: 100))[0])
            #expect(table.primaryPath()?.interface.name == "wlan0", "IPv4 before IPv6 at equal metric")
            table.apply(try NetlinkParser.parse(NetlinkBuilder.defaultRoute(oif: 9, gateway: [10, 8, 0, 1], priority: 50))[0])
            #expect(table.primaryPath()?.interface.hardwareType == 65534)
            // Blackhole and local-table defaults are not routes out.
            var other = InterfaceTable()
            other.apply(try NetlinkParser.parse(NetlinkBuilder.link(index: 2, name: "eth0", flags: 0x1041))[0])
            other.apply(try NetlinkParser.parse(NetlinkBuilder.defaultRoute(oif: 2, gateway: [10, 0, 0, 1], type: 6))[0])
            other.apply(try NetlinkParser.parse(NetlinkBuilder.defaultRoute(oif: 2, gateway: [10, 0, 0, 1], table: 255))[0])
            other.apply(try NetlinkParser.parse(NetlinkBuilder.address(index: 2, [0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5],
                                                                       prefix: 64, flags: 0x40))[0])
            #expect(other.defaultRouteCount == 0)
            #expect(other.primaryPath() == nil, "a tentative address is not usable yet")
            // A multipath default through a down and an up interface.
            var multi = InterfaceTable()
            multi.apply(try NetlinkParser.parse(NetlinkBuilder.link(index: 2, name: "eth0", flags: 0x1002))[0])
            multi.apply(try NetlinkParser.parse(NetlinkBuilder.link(index: 3, name: "eth1", flags: 0x1043))[0])
            multi.apply(try NetlinkParser.parse(NetlinkBuilder.defaultRoute(oif: nil, gateway: [10, 0, 0, 1], multipath: [2, 3]))[0])
            #expect(multi.primaryPath()?.interface.name == "eth1")
        }

        @Test("a deleted link takes its addresses and routes")
        func linkDeleted() throws {
            var sync = try syncedFromFixtures()
            let output = try apply(NetlinkBuilder.link(index: 4, name: "eth0", flags: 0x11043, removed: true), to: &sync)
            #expect(output.tableChanged)
            #expect(sync.table.interfaces[4] == nil)
            #expect(sync.table.addressCount == 2)
            #expect(sync.table.defaultRouteCount == 0)
        }

        @Test("an interrupted dump or a refused one is re-sent with a new sequence; three refusals fail for good")
        func retries() throws {
            var sync = RouteSync()
            _ = sync.start()
            var output = try apply(NetlinkBuilder.link(index: 1, name: "lo", flags: 0x49, type: 772, sequence: 1, messageFlags: 0x12)
                                   + NetlinkBuilder.done(sequence: 1), to: &sync)
            #expect(output.requests == [NetlinkParser.dumpRequest(.links, sequence: 2)], "NLM_F_DUMP_INTR: dump links again")
            output = try apply(NetlinkBuilder.done(sequence: 1), to: &sync)
            #expect(output.requests.isEmpty, "answers to an abandoned request are ignored")
            output = try apply(NetlinkBuilder.error(16, sequence: 2), to: &sync)
            #expect(output.requests == [NetlinkParser.dumpRequest(.links, sequence: 3)], "EBUSY: again")
            output = try apply(NetlinkBuilder.error(16, sequence: 3), to: &sync)
            #expect(output.failure == 16)
            #expect(sync.hasFailed)
            output = try apply(NetlinkBuilder.done(sequence: 4), to: &sync)
            #expect(output == RouteSync.Output(), "failed is sticky")
            #expect(sync.overrun() == RouteSync.Output())
        }

        @Test("an overrun empties the table and starts over; the table is reported again once synced")
        func overrun() throws {
            var sync = try syncedFromFixtures()
            let restart = sync.overrun()
            #expect(restart.requests == [NetlinkParser.dumpRequest(.links, sequence: 4)])
            #expect(!sync.isSynced)
            #expect(sync.table.interfaces.isEmpty)
            // A notification while resynchronising is applied but not reported.
            let output = try apply(NetlinkBuilder.link(index: 4, name: "eth0", flags: 0x11043), to: &sync)
            #expect(!output.tableChanged)
            #expect(sync.table.interfaces.count == 1)
        }

        @Test("the monitor reads this machine's rtnetlink: a synced table with a loopback interface")
        func liveMonitor() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    final class Box: @unchecked Sendable { var monitor: RouteMonitor? }  // loop thread only
                    let box = Box()
                    let table = try await loop.submit(deferred: { (promise: LoopPromise<InterfaceTable>) in
                        let monitor = RouteMonitor(eventLoop: loop) { event in
                            switch event {
                            case .table(let table): promise.succeed(table)
                            case .failed(let error): promise.fail(error)
                            }
                        }
                        box.monitor = monitor
                        do { try monitor.start() } catch { promise.fail(error) }
                    })
                    let loopback = table.interfaces.values.filter { $0.hardwareType == Netlink.hardwareLoopback }
                    #expect(loopback.count >= 1)
                    #expect(table.filtered { $0.hardwareType == Netlink.hardwareLoopback }.primaryPath() == nil)
                    // A path, if there is one, is a usable non-loopback interface.
                    if let path = table.primaryPath() {
                        #expect(path.interface.isUsable)
                        #expect(path.interface.hardwareType != Netlink.hardwareLoopback)
                    }
                    let running = try await loop.submit { box.monitor!.isRunning }
                    #expect(running)
                    try await loop.submit {
                        box.monitor!.stop()
                        box.monitor = nil
                    }
                }
            }
        }

        @Test("a wireless check refuses names that are not interface names and finds none for lo")
        func wirelessCheck() {
            #expect(!RouteMonitor.isWirelessInterface(named: "lo"))
            #expect(!RouteMonitor.isWirelessInterface(named: ""))
            #expect(!RouteMonitor.isWirelessInterface(named: ".."))
            #expect(!RouteMonitor.isWirelessInterface(named: "../../../etc"))
        }
    }
}
