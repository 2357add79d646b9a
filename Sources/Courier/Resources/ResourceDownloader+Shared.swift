// The shared default downloader (AFImageDownloader's defaultInstance): bytes, fetched through a
// Session of its own with the default configuration, kept in an auto-purging cache with
// AFNetworking's sizes (100 MiB, purged down to 60 MiB). A generic class cannot hold a static
// stored property, so the instance lives at file scope and the extension for ByteBuffer
// returns it.

import CourierBytes

/// Made on first use; the session lives as long as the process.
private let sharedByteDownloader: ResourceDownloader<ByteBuffer> = {
    let session = Session()
    return ResourceDownloader<ByteBuffer>(cache: AutoPurgingCache<String, ByteBuffer>()) { request in
        try await session.dataTask(with: request).value
    }
}()

extension ResourceDownloader where Decoded == ByteBuffer {
    /// The shared downloader of bytes (AFImageDownloader.defaultInstance): a session of its own,
    /// an auto-purging cache of 100 MiB, at most 4 fetches at once, FIFO, callbacks immediate.
    public static var shared: ResourceDownloader<ByteBuffer> { sharedByteDownloader }
}
