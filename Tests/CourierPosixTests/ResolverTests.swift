// The resolver: getaddrinfo on its own thread, literals, overrides, the TTL cache, typed errors.
// No network exists here: only localhost and names under ".invalid" (RFC 6761) are looked up.

import Testing
import Synchronization
@testable import CourierPosix

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let ns = Mutex<Int64>(1_000_000_000)
    var now: Instant { ns.withLock { Instant(nanoseconds: $0) } }
    func advance(_ d: Duration) { ns.withLock { $0 += d.clampedNanoseconds } }
}

extension PosixTests {
    @Suite("Resolver")
    struct ResolverTests {
        @Test("localhost resolves to a loopback address, on the resolver thread")
        func localhost() async throws {
            try await expectNoDescriptorLeak {
                let resolver = try Resolver()
                let addresses = try await resolver.resolve(host: "localhost", port: 8080)
                #expect(!addresses.isEmpty)
                #expect(addresses.allSatisfy { $0.ip.isLoopback && $0.port == 8080 })
                #expect(addresses.contains(SocketAddress(ip: .loopbackV4, port: 8080)))
                #expect(resolver.cachedNameCount == 1)
                await resolver.shutdown()
            }
        }

        @Test("IP literals bypass getaddrinfo and the cache", arguments: [
            ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("[::1]", "::1"), ("2001:DB8::0:1", "2001:db8::1"),
        ])
        func literals(text: String, canonical: String) async throws {
            try await expectNoDescriptorLeak {
                let resolver = try Resolver()
                let addresses = try await resolver.resolve(host: text, port: 443)
                #expect(addresses.map { "\($0.ip)" } == [canonical])
                #expect(addresses.first?.port == 443)
                #expect(resolver.cachedNameCount == 0)
                await resolver.shutdown()
            }
        }

        @Test("an override (curl --resolve) wins over the system's answer")
        func overrideWins() async throws {
            try await expectNoDescriptorLeak {
                let entry = try #require(ResolveOverride(parsing: "LocalHost:80:192.0.2.7,[2001:db8::7]"))
                let resolver = try Resolver(configuration: .init(overrides: [entry]))
                let answer = try await resolver.resolve(host: "localhost", port: 80)
                #expect(answer.map(\.description) == ["192.0.2.7:80", "[2001:db8::7]:80"])
                // Another port is not overridden.
                let other = try await resolver.resolve(host: "localhost", port: 81)
                #expect(other.allSatisfy { $0.ip.isLoopback })
                await resolver.shutdown()
            }
        }

        @Test("override parsing follows curl's HOST:PORT:ADDRESS[,ADDRESS] form")
        func overrideParsing() {
            let plain = ResolveOverride(parsing: "example.test:443:127.0.0.1")
            #expect(plain?.host == "example.test")
            #expect(plain?.port == 443)
            #expect(plain?.addresses == [.loopbackV4])
            #expect(ResolveOverride(parsing: "+a.test:1:::1")?.addresses == [.loopbackV6])
            #expect(ResolveOverride(parsing: "[::1]:8080:[::1]")?.host == "::1")
            #expect(ResolveOverride(parsing: "*:80:10.0.0.1")?.host == "*")
            for bad in ["a.test:443", "a.test:x:1.2.3.4", ":443:1.2.3.4", "a.test:443:", "a.test:443:notanip",
                        "a.test:70000:1.2.3.4", "a.test:443:1.2.3.4,"] {
                #expect(ResolveOverride(parsing: bad) == nil, "\(bad)")
            }
        }

        @Test("a cached answer is reused within its TTL and dropped after")
        func cacheTTL() async throws {
            try await expectNoDescriptorLeak {
                let clock = ManualClock()
                let resolver = try Resolver(configuration: .init(cacheTTL: .seconds(30), now: { clock.now }))
                let first = try await resolver.resolve(host: "localhost", port: 1)
                clock.advance(.seconds(29))
                #expect(try resolver.immediateAnswer(host: "LOCALHOST", port: 1) == first, "hit within the TTL")
                #expect(try resolver.immediateAnswer(host: "localhost", port: 2) == nil, "port is part of the key")
                clock.advance(.seconds(2))
                #expect(try resolver.immediateAnswer(host: "localhost", port: 1) == nil, "expired")
                await resolver.shutdown()
            }
        }

        @Test("the cache evicts the entry closest to expiry when full")
        func cacheEviction() {
            var cache = ResolverCache(ttl: .seconds(10), maxEntries: 2)
            let t0 = Instant(nanoseconds: 0)
            let a = [SocketAddress(ip: .loopbackV4, port: 1)]
            cache.insert(a, for: .init(host: "a", port: 1), now: t0)
            cache.insert(a, for: .init(host: "b", port: 1), now: t0 + .seconds(1))
            cache.insert(a, for: .init(host: "c", port: 1), now: t0 + .seconds(2))
            #expect(cache.count == 2)
            #expect(cache.lookup(.init(host: "a", port: 1), now: t0 + .seconds(2)) == nil)
            #expect(cache.lookup(.init(host: "B.", port: 1), now: t0 + .seconds(2)) == a)
            var off = ResolverCache(ttl: .zero, maxEntries: 10)
            off.insert(a, for: .init(host: "a", port: 1), now: t0)
            #expect(off.count == 0)
        }

        @Test("an unknown name is a typed EAI error", arguments: [true, false])
        func unknownName(rejectsInvalidNames: Bool) async throws {
            try await expectNoDescriptorLeak {
                let resolver = try Resolver(configuration: .init(rejectsInvalidNames: rejectsInvalidNames))
                let error = await #expect(throws: ResolutionError.self) {
                    _ = try await resolver.resolve(host: "courier-test.invalid", port: 80)
                }
                // Without DNS the C library may say EAI_AGAIN instead of EAI_NONAME; both are EAI.
                #expect(error?.code == .noName || (!rejectsInvalidNames && error?.code == .tryAgain))
                #expect(error?.code.name.hasPrefix("EAI_") == true)
                #expect(error?.host == "courier-test.invalid")
                #expect(error?.message.isEmpty == false)
                #expect(resolver.cachedNameCount == 0)
                await resolver.shutdown()
            }
        }

        @Test("getaddrinfo errors map to named codes with gai_strerror text")
        func eaiMapping() {
            guard case .failure(let error) = Resolver.lookup(host: "no-such-host.invalid", port: 1) else {
                Issue.record("a .invalid name resolved")
                return
            }
            #expect(error.code.name.hasPrefix("EAI_") && error.code != .unknown)
            #expect(ResolutionError(code: .noName, host: "x").message == "Name or service not known")
            #expect(ResolutionError.Code.tryAgain.name == "EAI_AGAIN")
            #expect("\(ResolutionError(code: .noName, host: "h.invalid"))" ==
                    "could not resolve h.invalid: EAI_NONAME (Name or service not known)")
        }

        @Test("after shutdown, lookups fail with .shutDown; literals still answer")
        func afterShutdown() async throws {
            try await expectNoDescriptorLeak {
                let resolver = try Resolver()
                await resolver.shutdown()
                let error = await #expect(throws: ResolutionError.self) {
                    _ = try await resolver.resolve(host: "localhost", port: 80)
                }
                #expect(error?.code == .shutDown)
                #expect(try await resolver.resolve(host: "127.0.0.1", port: 80).count == 1)
            }
        }

        @Test("addressFamily keeps one family; a name without it fails, a literal of the other family has nothing to connect to")
        func addressFamily() async throws {
            try await expectNoDescriptorLeak {
                var v4 = Resolver.Configuration(overrides: [ResolveOverride(host: "both.test", port: 80, addresses: [IPAddress("::1")!, .loopbackV4]),
                                                            ResolveOverride(host: "six.test", port: 80, addresses: [IPAddress("::1")!])])
                v4.addressFamily = .v4
                let resolver = try Resolver(configuration: v4)
                #expect(try await resolver.resolve(host: "both.test", port: 80) == [SocketAddress(ip: .loopbackV4, port: 80)])
                await #expect(throws: ResolutionError.self) { _ = try await resolver.resolve(host: "six.test", port: 80) }
                #expect(try await resolver.resolve(host: "::1", port: 80).isEmpty)
                await resolver.shutdown()
            }
        }

        @Test("connectTo sends a host and port elsewhere; empty parts match anything and keep the original")
        func connectTo() async throws {
            try await expectNoDescriptorLeak {
                var settings = Resolver.Configuration()
                settings.connectTo = [ConnectToOverride(parsing: "example.test:80:127.0.0.1:8080")!,
                                      ConnectToOverride(parsing: "::[::1]:")!]
                let resolver = try Resolver(configuration: settings)
                #expect(try await resolver.resolve(host: "EXAMPLE.test", port: 80) == [SocketAddress(ip: .loopbackV4, port: 8080)])
                #expect(try await resolver.resolve(host: "other.test", port: 443) == [SocketAddress(ip: IPAddress("::1")!, port: 443)])
                await resolver.shutdown()
            }
        }

        @Test("--connect-to parsing: four parts, brackets for IPv6, ports numbers or empty", arguments: [
            ("a:1:b:2", true), ("::b:", true), ("[::1]:80:[::2]:81", true), ("a:1:b", false), ("a:x:b:2", false), ("a:1:b:99999", false),
        ])
        func connectToParsing(text: String, valid: Bool) {
            #expect((ConnectToOverride(parsing: text) != nil) == valid)
        }
    }
}
