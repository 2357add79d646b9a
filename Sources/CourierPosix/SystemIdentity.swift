// SystemIdentity: the kernel's release and the executable's name, which a library's default
// User-Agent names (AFNetworking's `<app>/<version> (<model>; iOS <version>)`, on Linux).

/// What the running system and program are called, for a User-Agent (a library may read these).
public enum SystemIdentity {
    /// The kernel's release (uname(2): "6.1.0-18-amd64"), or nil when uname fails.
    public static var kernelRelease: String? { Sys.kernelRelease() }

    /// The running executable's file name (from /proc/self/exe), or nil when it cannot be read.
    public static var executableName: String? { Sys.executableName() }
}
