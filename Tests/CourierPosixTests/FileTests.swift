// Files: temporary files (unique, 0600, close-on-exec), positional reads and writes, size, sync,
// rename, unlink, typed errors.

import Testing
import Glibc
@testable import CourierPosix
import CourierBytes

extension PosixTests {
    @Suite("Files")
    struct FileTests {
        @Test("a temporary file is unique, mode 0600, close-on-exec, and round-trips bytes")
        func temporaryFile() async throws {
            try await expectNoDescriptorLeak {
                let a = try File.makeTemporary(in: "/tmp", prefix: "courier-test-")
                let b = try File.makeTemporary(in: "/tmp/", prefix: "courier-test-")
                defer { try? File.remove(a.path); try? File.remove(b.path) }
                #expect(a.path != b.path)
                #expect(a.path.hasPrefix("/tmp/courier-test-"))
                var info = stat()
                #expect(stat(a.path, &info) == 0)
                #expect(info.st_mode & 0o777 == 0o600)
                #expect(fcntl(a.fileDescriptor, F_GETFD) & FD_CLOEXEC != 0)

                let bytes = patternBytes(10_000)
                try bytes.withUnsafeBytes { try a.write($0, at: 0) }
                try a.write(ByteBuffer(string: "tail"), at: 20_000)
                #expect(try a.size() == 20_004)
                try a.sync()
                var buffer = ByteBuffer()
                #expect(try a.read(into: &buffer, maxBytes: 100, at: 9_950) == 100)
                #expect(buffer.readableBytesArray == Array(bytes[9_950...]) + [UInt8](repeating: 0, count: 50), "a hole reads as zeros")
                buffer.clear()
                #expect(try a.read(into: &buffer, maxBytes: 10, at: 20_000) == 4)
                #expect(buffer.readableString == "tail")
                #expect(try a.read(into: &buffer, maxBytes: 10, at: 30_000) == 0)
                try a.close()
                try b.close()
            }
        }

        @Test("rename replaces the destination; unlink removes; missing files are ENOENT")
        func renameAndUnlink() async throws {
            try await expectNoDescriptorLeak {
                let tmp = try File.makeTemporary(in: "/tmp", prefix: "courier-test-")
                try tmp.write(ByteBuffer(string: "new"), at: 0)
                try tmp.close()
                let old = try File.makeTemporary(in: "/tmp", prefix: "courier-test-")
                try old.write(ByteBuffer(string: "old contents"), at: 0)
                try old.close()
                try File.rename(tmp.path, to: old.path)
                let reopened = try File.open(old.path)
                var buffer = ByteBuffer()
                try reopened.read(into: &buffer, maxBytes: 100, at: 0)
                #expect(buffer.readableString == "new")
                try reopened.close()
                try File.remove(old.path)
                #expect(throws: Errno.noSuchFileOrDirectory) { _ = try File.open(old.path) }
                #expect(throws: Errno.noSuchFileOrDirectory) { try File.remove(tmp.path) }
                #expect(throws: Errno.noSuchFileOrDirectory) { _ = try File.makeTemporary(in: "/nonexistent-courier-dir") }
            }
        }

        @Test("open with create and truncate")
        func openCreate() async throws {
            try await expectNoDescriptorLeak {
                let probe = try File.makeTemporary(in: "/tmp", prefix: "courier-test-")
                let path = probe.path + ".created"
                try probe.close()
                try File.remove(probe.path)
                let f = try File.open(path, access: .readWrite, create: true)
                try f.write(ByteBuffer(string: "abcdef"), at: 0)
                try f.close()
                let g = try File.open(path, access: .writeOnly, truncate: true)
                #expect(try g.size() == 0)
                try g.close()
                try File.remove(path)
            }
        }
    }

    @Suite("Addresses and clock")
    struct AddressAndClockTests {
        @Test("IP literals parse strictly and format canonically")
        func parsing() {
            #expect(IPAddress("127.0.0.1") == .loopbackV4)
            #expect(IPAddress("::1") == .loopbackV6)
            #expect(IPAddress("[::1]") == .loopbackV6)
            #expect(IPAddress("2001:0db8:0000:0000:0000:0000:0000:0001")?.description == "2001:db8::1")
            #expect(IPAddress("fe80::1%3")?.scopeID == 3)
            #expect(IPAddress("fe80::1%3")?.description == "fe80::1%3")
            #expect(IPAddress("::ffff:192.0.2.1")?.family == .v6)
            for bad in ["", "1.2.3", "256.1.1.1", "1.2.3.4.5", "01.2.3.4x", "example.com", "[1.2.3.4]", "[::1",
                        "::1]", ":::", "fe80::1%eth0", "[]", " 1.2.3.4"] {
                #expect(IPAddress(bad) == nil, "\(bad)")
            }
            #expect(IPAddress(bytes: [1, 2, 3]) == nil)
            #expect(IPAddress(bytes: [10, 0, 0, 1])?.description == "10.0.0.1")
        }

        @Test("socket addresses print with brackets for IPv6")
        func socketAddressText() {
            #expect(SocketAddress("192.0.2.1", port: 80)?.description == "192.0.2.1:80")
            #expect(SocketAddress("[2001:db8::1]", port: 443)?.description == "[2001:db8::1]:443")
            #expect(SocketAddress("nope", port: 1) == nil)
            #expect(IPAddress.loopbackV4.isLoopback && IPAddress.loopbackV6.isLoopback)
            #expect(!(IPAddress("10.0.0.1")!.isLoopback))
        }

        @Test("the monotonic clock moves forward and arithmetic saturates")
        func clock() {
            let a = Instant.now()
            let b = Instant.now()
            #expect(b >= a)
            #expect((a + .seconds(2)) - a == .seconds(2))
            #expect(a + .seconds(Int64.max) == .distantFuture)
            #expect(Duration.milliseconds(1).timeoutMilliseconds == 1)
            #expect(Duration.microseconds(1).timeoutMilliseconds == 1, "rounded up, never early")
            #expect(Duration.microseconds(1_500).timeoutMilliseconds == 2)
            #expect(Duration.seconds(-1).timeoutMilliseconds == 0)
            #expect(Duration.seconds(Int64.max).timeoutMilliseconds == CInt.max)
        }
    }
}
