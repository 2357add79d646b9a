// Conversions between SocketAddress and the C sockaddr_in / sockaddr_in6 layouts. Memory layout
// only: no C function is called here (those live in Syscall.swift).

import CourierBytes
internal import Glibc

extension SocketAddress {
    /// Gives `body` this address as a `sockaddr` and its length.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch ip.family {
        case .v4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            ip.storage.withUnsafeBytes { b in
                withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: b.prefix(4))) }
            }
            return withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .v6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            sin6.sin6_scope_id = ip.scopeID
            ip.storage.withUnsafeBytes { b in
                withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: b.prefix(16))) }
            }
            return withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Reads an AF_INET or AF_INET6 sockaddr of `length` bytes; nil for other families.
    init?(sockaddr pointer: UnsafePointer<sockaddr>?, length: Int) {
        guard let pointer else { return nil }
        let raw = UnsafeRawPointer(pointer)
        switch CInt(pointer.pointee.sa_family) {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            let sin = raw.loadUnaligned(as: sockaddr_in.self)
            let bytes = withUnsafeBytes(of: sin.sin_addr) { Array($0) }
            self.init(ip: IPAddress(bytes: bytes)!, port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            let sin6 = raw.loadUnaligned(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }
            self.init(ip: IPAddress(bytes: bytes, scopeID: sin6.sin6_scope_id)!, port: UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
    }

    /// Lets `fill` write a sockaddr_storage (getsockname, getpeername) and converts it.
    /// - Throws: what `fill` throws, or EAFNOSUPPORT for a family other than IPv4/IPv6.
    static func fromSockaddr(_ fill: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) throws(Errno) -> Int) throws(Errno) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let address: SocketAddress? = try withUnsafeMutablePointer(to: &storage) { (p) throws(Errno) -> SocketAddress? in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(Errno) -> SocketAddress? in
                _ = try fill(sa, &length)
                return SocketAddress(sockaddr: sa, length: Int(length))
            }
        }
        guard let address else { throw Errno.addressFamilyNotSupported }
        return address
    }
}
