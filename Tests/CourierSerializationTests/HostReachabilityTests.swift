// Reachability of one host or address: the RTM_GETROUTE request byte by byte, the answer read from
// crafted kernel messages, the kernel's live answers checked against `ip route get` (iproute2, the
// same question asked by another program), and the Reachability object for loopback destinations,
// localhost and a routed address.

import Foundation
import Glibc
import Testing
@testable import CourierPosix
@testable import Courier

@Suite("Host reachability", .timeLimit(.minutes(1)))
struct HostReachabilityTests {
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    @Test("the request is nlmsghdr + rtmsg + RTA_DST, and RTA_OIF for a scoped IPv6 address")
    func request() {
        let v4 = RouteLookup.request(for: IPAddress("192.0.2.9")!, sequence: 7)
        let expected: [UInt8] = Self.le32(36) + Self.le16(26) + Self.le16(1) + Self.le32(7) + Self.le32(0)
            + [2, 32, 0, 0, 0, 0, 0, 0] + Self.le32(0)
            + Self.le16(8) + Self.le16(1) + [192, 0, 2, 9]
        #expect(v4 == expected)
        let v6 = RouteLookup.request(for: IPAddress("fe80::1%3")!, sequence: 1)
        #expect(v6.count == 16 + 12 + 20 + 8)
        #expect(v6[16] == 10 && v6[17] == 128)
        #expect(Array(v6[48...]) == Self.le16(8) + Self.le16(4) + Self.le32(3))
        #expect(RouteLookup.request(for: .loopbackV6, sequence: 1).count == 48, "no RTA_OIF without a scope")
    }

    static func message(type: UInt16, sequence: UInt32, _ payload: [UInt8]) -> [UInt8] {
        var bytes = le32(UInt32(16 + payload.count)) + le16(type) + le16(0) + le32(sequence) + le32(0) + payload
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    @Test("a route answer gives type and interface; an error answer is unroutable; other sequences are skipped")
    func answers() throws {
        // RTM_NEWROUTE, rtmsg{AF_INET, /32, table main, type local}, RTA_OIF 1.
        let local = Self.message(type: 24, sequence: 5, [2, 32, 0, 0, 254, 0, 254, 2] + Self.le32(0)
                                 + Self.le16(8) + Self.le16(4) + Self.le32(1))
        let unicast = Self.message(type: 24, sequence: 5, [2, 32, 0, 0, 254, 0, 0, 1] + Self.le32(0)
                                   + Self.le16(8) + Self.le16(5) + [192, 0, 2, 1] + Self.le16(8) + Self.le16(4) + Self.le32(2))
        let unreachable = Self.message(type: 2, sequence: 5, Self.le32(UInt32(bitPattern: -101)) + [UInt8](repeating: 0, count: 16))
        let blackhole = Self.message(type: 24, sequence: 5, [2, 32, 0, 0, 254, 0, 253, 6] + Self.le32(0))
        let stranger = Self.message(type: 24, sequence: 9, [2, 32, 0, 0, 254, 0, 0, 1] + Self.le32(0))

        let a = try #require(RouteLookup.answer(from: NetlinkParser.parse(local), sequence: 5))
        #expect(a.isRouted && a.isLocal && a.outputInterface == 1)
        let b = try #require(RouteLookup.answer(from: NetlinkParser.parse(unicast), sequence: 5))
        #expect(b.isRouted && !b.isLocal && b.outputInterface == 2 && b.gateway == [192, 0, 2, 1])
        let c = try #require(RouteLookup.answer(from: NetlinkParser.parse(unreachable), sequence: 5))
        #expect(!c.isRouted && c.errno == 101)
        let d = try #require(RouteLookup.answer(from: NetlinkParser.parse(blackhole), sequence: 5))
        #expect(!d.isRouted, "a blackhole route routes nothing")
        #expect(RouteLookup.answer(from: try NetlinkParser.parse(stranger), sequence: 5) == nil)
        #expect(try RouteLookup.answer(from: NetlinkParser.parse(stranger + unicast), sequence: 5) == b)
    }

    /// `ip route get ADDR`: nil when it refuses (no route), else the first word and the device.
    static func iproute(_ address: String) throws -> (local: Bool, device: String)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["route", "get", address]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let words = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard let dev = words.firstIndex(of: "dev"), dev + 1 < words.count else { return nil }
        return (words.first == "local", String(words[dev + 1]))
    }

    static func interfaceName(_ index: Int32) -> String? {
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(bitPattern: index), &name) != nil else { return nil }
        return String(decoding: name.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test("the kernel's answers agree with `ip route get` for loopback, own, on-link, remote and test-net addresses",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")))
    func agreesWithIproute() throws {
        var addresses = ["127.0.0.1", "127.9.8.7", "::1", "192.0.2.1", "198.51.100.7", "203.0.113.200",
                         "8.8.8.8", "10.255.255.1", "240.0.0.1", "2001:db8::1", "fc00::1", "fe80::1"]
        // One of this machine's own addresses, if it has a non-loopback one.
        if let own = Sys.interfaceAddresses("eth0")?.first(where: { $0.family == .v4 }) { addresses.append(own.description) }
        for text in addresses {
            let address = try #require(IPAddress(text))
            let ours = try RouteLookup.lookUp(address)
            let theirs = try Self.iproute(text)
            #expect(ours.isRouted == (theirs != nil), "\(text): routed \(ours.isRouted), ip route get \(String(describing: theirs))")
            guard let theirs, ours.isRouted else { continue }
            #expect(ours.isLocal == theirs.local, "\(text)")
            #expect(ours.outputInterface.flatMap(Self.interfaceName) == theirs.device, "\(text)")
        }
    }

    static func firstDefinite(_ reachability: Reachability) async -> ReachabilityStatus {
        let updates = reachability.statusUpdates()
        reachability.start()
        for await status in updates where status != .unknown { return status }
        return .unknown
    }

    @Test("127.0.0.1, ::1 and localhost are reachable via loopback", arguments: ["127.0.0.1", "::1", "[::1]", "localhost"])
    func loopback(_ host: String) async {
        let reachability = Reachability(host: host)
        #expect(reachability.status == .unknown)
        let status = await Self.firstDefinite(reachability)
        defer { reachability.stop() }
        #expect(status == .reachable(.loopback))
        #expect(status.localizedDescription == "Reachable via Loopback")
        #expect(reachability.interfaceName == "lo")
        #expect(reachability.addresses?.allSatisfy(\.isLoopback) == true)
        #expect(reachability.monitoringError == nil)
    }

    @Test("an address watcher's status is the kernel's route answer; the default watcher never says loopback")
    func address() async throws {
        let address = IPAddress("198.51.100.7")!
        let answer = try RouteLookup.lookUp(address)
        let reachability = Reachability(address: address)
        #expect(reachability.target == .address(address))
        let status = await Self.firstDefinite(reachability)
        reachability.stop()
        #expect(status.isReachable == answer.isRouted)
        if answer.isRouted { #expect(reachability.interfaceName == answer.outputInterface.flatMap(Self.interfaceName)) }
        #expect(Reachability().target == .defaultRoute)
    }

    @Test("a name that does not resolve is not reachable, with the resolver's error")
    func unresolvable() async {
        let reachability = Reachability(host: "no-such-host.invalid")
        let status = await Self.firstDefinite(reachability)
        reachability.stop()
        #expect(status == .notReachable)
        #expect(reachability.resolutionError != nil)
    }
}
