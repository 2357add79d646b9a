// NetlinkParser on captured rtnetlink dumps and on crafted malformed messages: every field the
// route monitor uses, every truncation of every captured datagram, every length check.

import Testing
@testable import CourierPosix

/// Builds netlink messages for tests (host byte order, 4-byte alignment).
enum NetlinkBuilder {
    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var bytes = le(UInt16(4 + value.count)) + le(type) + value
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func message(type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        var bytes = le(UInt32(16 + payload.count)) + le(type) + le(flags) + le(sequence) + le(UInt32(0)) + payload
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    /// RTM_NEWLINK (or DELLINK) for an interface.
    static func link(index: Int32, name: String, flags: UInt32, type hardware: UInt16 = 1,
                     removed: Bool = false, sequence: UInt32 = 0, messageFlags: UInt16 = 0) -> [UInt8] {
        let info: [UInt8] = [0, 0] + le(hardware) + le(UInt32(bitPattern: index)) + le(flags) + le(UInt32(0))
        return message(type: removed ? 17 : 16, flags: messageFlags, sequence: sequence,
                       info + attribute(3, Array(name.utf8) + [0]))
    }

    /// RTM_NEWADDR (or DELADDR).
    static func address(index: Int32, _ address: [UInt8], prefix: UInt8, scope: UInt8 = 0, flags: UInt32 = 0x80,
                        removed: Bool = false, sequence: UInt32 = 0) -> [UInt8] {
        let family: UInt8 = address.count == 4 ? 2 : 10
        let info: [UInt8] = [family, prefix, UInt8(truncatingIfNeeded: flags), scope] + le(UInt32(bitPattern: index))
        return message(type: removed ? 21 : 20, sequence: sequence,
                       info + attribute(1, address) + attribute(8, le(flags)))
    }

    /// RTM_NEWROUTE (or DELROUTE) for a default route.
    static func defaultRoute(oif: Int32?, gateway: [UInt8], priority: UInt32? = nil, table: UInt8 = 254,
                             type routeType: UInt8 = 1, multipath: [Int32] = [], removed: Bool = false,
                             sequence: UInt32 = 0) -> [UInt8] {
        let family: UInt8 = gateway.count == 4 ? 2 : 10
        var payload: [UInt8] = [family, 0, 0, 0, table, 3, 0, routeType] + le(UInt32(0))
        payload += attribute(15, le(UInt32(table)))
        payload += attribute(5, gateway)
        if let oif { payload += attribute(4, le(UInt32(bitPattern: oif))) }
        if let priority { payload += attribute(6, le(priority)) }
        if !multipath.isEmpty {
            var hops: [UInt8] = []
            for index in multipath {
                let nested = attribute(5, gateway)
                hops += le(UInt16(8 + nested.count)) + [0, 0] + le(UInt32(bitPattern: index)) + nested
            }
            payload += attribute(9, hops)
        }
        return message(type: removed ? 25 : 24, sequence: sequence, payload)
    }

    static func done(sequence: UInt32) -> [UInt8] {
        message(type: 3, flags: 2, sequence: sequence, le(UInt32(0)))
    }

    static func error(_ errno: Int32, sequence: UInt32) -> [UInt8] {
        message(type: 2, sequence: sequence, le(UInt32(bitPattern: -errno)) + [UInt8](repeating: 0, count: 16))
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

/// Parses a sequence of hex datagrams into one message list.
func parseAll(_ datagrams: [String]) throws -> [NetlinkMessage] {
    try datagrams.flatMap { try NetlinkParser.parse(hexBytes($0)) }
}

extension PosixTests {
    @Suite("Netlink parser")
    struct NetlinkParserTests {
        @Test("the captured link dump: four interfaces, then NLMSG_DONE, all answering sequence 1")
        func linkDump() throws {
            let messages = try parseAll(NetlinkFixtures.linkDump)
            #expect(messages.count == 5)
            var links: [LinkInfo] = []
            for message in messages {
                #expect(message.header.sequence == 1)
                #expect(message.header.flags & 0x2 != 0, "NLM_F_MULTI")
                if case .link(let link, let removed) = message.body {
                    #expect(!removed)
                    links.append(link)
                }
            }
            #expect(messages.last?.body == .done)
            #expect(links.map(\.name) == ["lo", "ifb0", "ifb1", "eth0"])
            #expect(links.map(\.index) == [1, 2, 3, 4])
            #expect(links.map(\.hardwareType) == [772, 1, 1, 1])
            #expect(links[0].flags == 0x10049, "lo: UP | LOOPBACK | RUNNING | LOWER_UP")
            #expect(links[1].flags == 0x82, "ifb0: BROADCAST | NOARP, down")
            #expect(links[3].flags == 0x11043, "eth0: UP | BROADCAST | RUNNING | MULTICAST | LOWER_UP")
            #expect(links[3].operationalState == 6, "IF_OPER_UP")
        }

        @Test("the captured address dump: IPv4 and IPv6 addresses with scopes, flags and prefixes")
        func addressDump() throws {
            let messages = try parseAll(NetlinkFixtures.addressDump)
            let addresses = messages.compactMap { m -> AddressInfo? in
                if case .address(let a, _) = m.body { return a }
                return nil
            }
            #expect(addresses.count == 5)
            #expect(addresses[0] == AddressInfo(family: 2, prefixLength: 8, flags: 0x80, scope: 254, interfaceIndex: 1,
                                                address: [127, 0, 0, 1]))
            #expect(addresses[1].address == [192, 0, 2, 2])
            #expect(addresses[1].scope == 0 && addresses[1].prefixLength == 24 && addresses[1].interfaceIndex == 4)
            #expect(addresses[3].family == 10)
            #expect(addresses[3].address == [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2])
            #expect(addresses[3].flags & 0x02 != 0, "IFA_F_NODAD, from IFA_FLAGS")
            #expect(addresses[4].scope == 253, "fe80::/64 is link scope")
            #expect(messages.last?.body == .done)
            #expect(messages.allSatisfy { $0.header.sequence == 2 })
        }

        @Test("the captured route dump: both default routes with gateway, interface, table and metric")
        func routeDump() throws {
            let messages = try parseAll(NetlinkFixtures.routeDump)
            let routes = messages.compactMap { m -> RouteInfo? in
                if case .route(let r, _) = m.body { return r }
                return nil
            }
            #expect(routes.count == 14)
            let defaults = routes.filter { $0.destinationLength == 0 }
            #expect(defaults.count == 2)
            #expect(defaults[0].family == 2)
            #expect(defaults[0].gateway == [192, 0, 2, 1])
            #expect(defaults[0].outputInterface == 4)
            #expect(defaults[0].table == 254)
            #expect(defaults[0].type == 1)
            #expect(defaults[1].family == 10)
            #expect(defaults[1].gateway == [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
            #expect(defaults[1].priority == 1024)
            #expect(routes.contains { $0.table == 255 && $0.type == 2 }, "local-table routes are parsed too")
        }

        @Test("every cut of every captured datagram either ends on a message boundary or throws")
        func everyTruncation() throws {
            for datagram in (NetlinkFixtures.linkDump + NetlinkFixtures.addressDump + NetlinkFixtures.routeDump).map(hexBytes) {
                let whole = try NetlinkParser.parse(datagram)
                // Valid ends: after each message, with or without its padding.
                var ends: [Int: Int] = [0: 0]
                var offset = 0
                for (i, message) in whole.enumerated() {
                    ends[offset + Int(message.header.length)] = i + 1
                    offset += (Int(message.header.length) + 3) & ~3
                    ends[offset] = i + 1
                }
                for cut in 0..<datagram.count {
                    let prefix = Array(datagram[..<cut])
                    if let count = ends[cut] {
                        #expect(try NetlinkParser.parse(prefix) == Array(whole.prefix(count)))
                    } else {
                        #expect(throws: NetlinkParseError.self) { try NetlinkParser.parse(prefix) }
                    }
                }
            }
        }

        @Test("message and attribute lengths are checked, with the offset of the fault")
        func malformed() throws {
            // A header claiming fewer than 16 bytes.
            var bad = NetlinkBuilder.done(sequence: 1)
            bad[0] = 8
            #expect(throws: NetlinkParseError(code: .badMessageLength, offset: 0)) { try NetlinkParser.parse(bad) }
            // A second message whose length runs past the datagram.
            bad = NetlinkBuilder.done(sequence: 1) + NetlinkBuilder.done(sequence: 1)
            bad[20] = 200
            #expect(throws: NetlinkParseError(code: .badMessageLength, offset: 20)) { try NetlinkParser.parse(bad) }
            // An ifinfomsg cut to 8 bytes.
            bad = NetlinkBuilder.message(type: 16, [UInt8](repeating: 0, count: 8))
            #expect(throws: NetlinkParseError(code: .shortPayload, offset: 16)) { try NetlinkParser.parse(bad) }
            // An attribute with rta_len 2.
            bad = NetlinkBuilder.message(type: 16, [UInt8](repeating: 0, count: 16) + [2, 0, 3, 0])
            #expect(throws: NetlinkParseError(code: .badAttributeLength, offset: 32)) { try NetlinkParser.parse(bad) }
            // An attribute running past its message.
            bad = NetlinkBuilder.message(type: 16, [UInt8](repeating: 0, count: 16) + [40, 0, 3, 0, 0x6c, 0x6f, 0, 0])
            #expect(throws: NetlinkParseError(code: .badAttributeLength, offset: 32)) { try NetlinkParser.parse(bad) }
            // IFLA_OPERSTATE as 4 bytes instead of 1.
            bad = NetlinkBuilder.message(type: 16, [UInt8](repeating: 0, count: 16) + NetlinkBuilder.attribute(16, [6, 0, 0, 0]))
            #expect(throws: NetlinkParseError(code: .badAttribute, offset: 32)) { try NetlinkParser.parse(bad) }
            // RTA_OIF as 2 bytes.
            bad = NetlinkBuilder.message(type: 24, [UInt8](repeating: 0, count: 12) + NetlinkBuilder.attribute(4, [1, 0]))
            #expect(throws: NetlinkParseError(code: .badAttribute, offset: 28)) { try NetlinkParser.parse(bad) }
            // An address of 5 bytes.
            bad = NetlinkBuilder.message(type: 20, [2, 24, 0, 0, 4, 0, 0, 0] + NetlinkBuilder.attribute(1, [1, 2, 3, 4, 5]))
            #expect(throws: NetlinkParseError(code: .badAttribute, offset: 24)) { try NetlinkParser.parse(bad) }
            // NLMSG_ERROR without its errno.
            bad = NetlinkBuilder.message(type: 2, [])
            #expect(throws: NetlinkParseError(code: .shortPayload, offset: 16)) { try NetlinkParser.parse(bad) }
        }

        @Test("NLMSG_ERROR gives a positive errno (0 for an ACK); unknown types and attributes are skipped")
        func errorsAndUnknowns() throws {
            let messages = try NetlinkParser.parse(NetlinkBuilder.error(16, sequence: 9) + NetlinkBuilder.error(0, sequence: 10)
                                                   + NetlinkBuilder.message(type: 1, []) + NetlinkBuilder.message(type: 0x40, [1, 2, 3]))
            #expect(messages.map(\.body) == [.error(errno: 16), .error(errno: 0), .other, .other])
            #expect(messages[0].header.sequence == 9)
            let link = try NetlinkParser.parse(NetlinkBuilder.message(type: 16, [0, 0, 1, 0, 7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
                                                                      + NetlinkBuilder.attribute(0x8000 | 99, [1, 2, 3])
                                                                      + NetlinkBuilder.attribute(3, Array("wlan0".utf8))))
            #expect(link.first?.body == .link(LinkInfo(index: 7, hardwareType: 1, flags: 1, name: "wlan0", operationalState: nil),
                                              removed: false), "a name without its NUL is read to the attribute's end")
        }

        @Test("RTA_MULTIPATH next hops give every interface of the route")
        func multipath() throws {
            let bytes = NetlinkBuilder.defaultRoute(oif: nil, gateway: [10, 0, 0, 1], multipath: [4, 5])
            let messages = try NetlinkParser.parse(bytes)
            guard case .route(let route, false)? = messages.first?.body else { Issue.record("no route"); return }
            #expect(route.outputInterface == nil)
            #expect(route.nextHopInterfaces == [4, 5])
            #expect(route.interfaces == [4, 5])
        }

        @Test("dump requests are the headers the kernel expects (and what the fixtures answered)")
        func dumpRequests() {
            #expect(NetlinkParser.dumpRequest(.links, sequence: 1) == hexBytes("20000000 1200 0103 01000000 00000000" + String(repeating: "00", count: 16)))
            #expect(NetlinkParser.dumpRequest(.addresses, sequence: 2) == hexBytes("18000000 1600 0103 02000000 00000000" + String(repeating: "00", count: 8)))
            #expect(NetlinkParser.dumpRequest(.routes, sequence: 3) == hexBytes("1c000000 1a00 0103 03000000 00000000" + String(repeating: "00", count: 12)))
        }
    }
}
