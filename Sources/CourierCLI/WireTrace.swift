// WireTrace: curl's --trace and --trace-ascii (tool_cb_dbg.c in curl 7.88), from the session's
// wire tap. Records, each with curl's words and byte counts:
//
//   == Info: Connected to 127.0.0.1 (127.0.0.1) port 8080      the task events -v prints as "* "
//   => Send header, 78 bytes (0x4e)                            the request head, whole
//   => Send data, 3 bytes (0x3)                                each request body piece as framed
//   <= Recv header, 17 bytes (0x11)                            one per response head line
//   <= Recv data, 6 bytes (0x6)                                the rest of a read, as it came
//
// followed by the dump: `--trace` 16 bytes per line, `0000: 47 45 54 ... GET`, `--trace-ascii`
// up to 64 bytes per line, a new line after each CRLF. `--trace-time` puts the local time of the
// record, HH:MM:SS.uuuuuu and a space, before the record's first line (and before each -v line).
//
// The tap is called on the event loop, and task events in the transfer: each copies its bytes and
// the time and queues the rest on the standard output thread, where records are cut and written in
// order; nothing blocks a loop or a cooperative thread. Which received bytes are head lines is
// decided per connection: after a request head, lines up to a blank line (another head follows an
// interim 1xx), then data until the next request head (HTTP/1.1 without pipelining: a response
// ends before the next request goes out).

import Courier
import CourierBytes
import CourierPosix
import Synchronization

/// The trace the command line asked for (-v, --trace, --trace-ascii: the last one given wins).
enum TraceKind: Sendable, Equatable {
    /// -v: curl's "* ", "> ", "< " lines on stderr.
    case plain
    /// --trace FILE: hex dump.
    case hex
    /// --trace-ascii FILE: text dump.
    case ascii
}

/// curl's `--trace-time` stamp.
enum TraceClock {
    /// A moment: seconds since the epoch and microseconds.
    typealias Moment = (seconds: Int64, microseconds: Int64)

    /// Now.
    static func now() -> Moment { WallClock.nowMicroseconds() }

    /// "HH:MM:SS.uuuuuu " in local time, as curl prints it.
    static func stamp(_ moment: Moment) -> String {
        let (h, m, s) = WallClock.localTimeOfDay(moment.seconds)
        return digits(h, 2) + ":" + digits(m, 2) + ":" + digits(s, 2) + "." + digits(Int(moment.microseconds), 6) + " "
    }

    /// Reads the local zone once where a file read may block, so later stamps read nothing.
    static func prepare() async {
        await BlockingIOThread.shared.run { () -> Void in _ = WallClock.localTimeOfDay(WallClock.secondsSinceEpoch()) }
    }

    /// Each line of `text` (ending in "\n"; a CRLF stays in its line) with the stamp of now
    /// before it (-v with --trace-time).
    static func stamped(_ text: String) -> String {
        guard !text.isEmpty else { return text }
        let prefix = Array(stamp(now()).utf8)
        var out = [UInt8]()
        var atStart = true
        for byte in text.utf8 {
            if atStart { out += prefix }
            out.append(byte)
            atStart = byte == 0x0A
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func digits(_ value: Int, _ width: Int) -> String {
        var text = String(value)
        while text.count < width { text = "0" + text }
        return text
    }
}

/// curl's dump of one record (tool_cb_dbg.c `dump`).
enum TraceDump {
    /// What a record is: curl's words for it.
    enum Record: String, Sendable {
        case sendHeader = "=> Send header"
        case sendData = "=> Send data"
        case recvHeader = "<= Recv header"
        case recvData = "<= Recv data"
    }

    /// The record's text: the title line (after `stamp`) and the dump lines.
    static func text(_ record: Record, _ bytes: [UInt8], ascii: Bool, stamp: String = "") -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * (ascii ? 1 : 4) + 64)
        out += Array("\(stamp)\(record.rawValue), \(bytes.count) bytes (0x\(String(bytes.count, radix: 16)))\n".utf8)
        let width = ascii ? 0x40 : 0x10
        let size = bytes.count
        var i = 0
        while i < size {
            appendHex(i, width: 4, to: &out)
            out += [0x3A, 0x20]  // ": "
            if !ascii {
                for c in 0..<width {
                    if i + c < size {
                        appendHex(Int(bytes[i + c]), width: 2, to: &out)
                        out.append(0x20)
                    } else {
                        out += [0x20, 0x20, 0x20]
                    }
                }
            }
            var c = 0
            while c < width && i + c < size {
                // A CRLF ends the output line (the dump goes on after it).
                if ascii && i + c + 1 < size && bytes[i + c] == 0x0D && bytes[i + c + 1] == 0x0A {
                    i += c + 2 - width
                    break
                }
                let byte = bytes[i + c]
                out.append(byte >= 0x20 && byte < 0x7F ? byte : 0x2E)  // curl 7.88 prints DEL as "." too
                // A CRLF right after this byte: skip it here, so no empty line follows at the width.
                if ascii && i + c + 2 < size && bytes[i + c + 1] == 0x0D && bytes[i + c + 2] == 0x0A {
                    i += c + 3 - width
                    break
                }
                c += 1
            }
            out.append(0x0A)
            i += width
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendHex(_ value: Int, width: Int, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        var digits = [UInt8]()
        var v = value
        repeat {
            digits.append(hex[v & 0xF])
            v >>= 4
        } while v > 0
        while digits.count < width { digits.append(0x30) }
        out += digits.reversed()
    }
}

/// The process's --trace or --trace-ascii: the wire tap's observer and the writer of its records.
final class WireTrace: Sendable {
    /// Where the records go: "-" standard output, "%" standard error, else a file (created or
    /// emptied at the first record; one that cannot be opened makes the trace go to standard
    /// error, as curl falls back).
    let path: String
    let ascii: Bool
    let time: Bool

    /// A response being read on one connection: head lines (a line cut between reads is kept
    /// until its end comes) or data.
    private struct Reading {
        var inHead = true
        var firstLine = true
        var interim = false
        var line: [UInt8] = []
    }

    private struct Output {
        var opened = false
        var file: File?
        var offset: Int64 = 0
        var connections: [UInt: Reading] = [:]
    }

    /// Touched only by jobs on the standard output thread (the lock is never contended).
    private let state = Mutex(Output())

    init(path: String, ascii: Bool, time: Bool) {
        self.path = path
        self.ascii = ascii
        self.time = time
    }

    /// The tap for the session configuration.
    var tap: WireTap {
        WireTap(bytes: { [self] connection, record, bytes in
            let moment = time ? TraceClock.now() : (0, 0)
            StandardOutput.submit { self.handle(connection: connection, record: record, bytes: bytes, moment: moment) }
        }, event: { [self] event in
            switch event {
            case .requestHead, .responseHead: return  // the bytes are traced as they go
            default: break
            }
            let text = Trace.text(for: event)
            guard !text.isEmpty else { return }
            info(text)
        })
    }

    /// Writes curl's "== Info: " records for `text`, lines in -v's "* " form.
    func info(_ text: String) {
        let moment = time ? TraceClock.now() : (0, 0)
        StandardOutput.submit { [self] in
            let stamp = time ? TraceClock.stamp(moment) : ""
            var out = ""
            for line in text.utf8.split(separator: 0x0A) {
                let words = line.starts(with: "* ".utf8) ? line.dropFirst(2) : line
                out += stamp + "== Info: " + String(decoding: words, as: UTF8.self) + "\n"
            }
            write(out)
        }
    }

    /// Waits until every record queued so far is written, and closes the file.
    func finish() async {
        await StandardOutput.drainSubmitted()
        StandardOutput.submit { [self] in
            state.withLock { s in
                try? s.file?.close()
                s.file = nil
            }
        }
        await StandardOutput.drainSubmitted()
    }

    // MARK: On the standard output thread

    private func handle(connection: UInt, record: WireTap.Record, bytes: [UInt8], moment: TraceClock.Moment) {
        let stamp = time ? TraceClock.stamp(moment) : ""
        var out = ""
        state.withLock { s in
            switch record {
            case .sentHead:
                s.connections[connection] = Reading()
                out = TraceDump.text(.sendHeader, bytes, ascii: ascii, stamp: stamp)
            case .sentBody:
                out = TraceDump.text(.sendData, bytes, ascii: ascii, stamp: stamp)
            case .received:
                var reading = s.connections[connection] ?? Reading(inHead: false)
                out = received(bytes, &reading, stamp: stamp)
                s.connections[connection] = reading
            }
        }
        write(out)
    }

    /// Cuts received bytes into head-line records and one data record.
    private func received(_ bytes: [UInt8], _ reading: inout Reading, stamp: String) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            guard reading.inHead else {
                out += TraceDump.text(.recvData, Array(bytes[i...]), ascii: ascii, stamp: stamp)
                break
            }
            guard let lf = bytes[i...].firstIndex(of: 0x0A) else {
                reading.line += bytes[i...]
                break
            }
            reading.line += bytes[i...lf]
            i = lf + 1
            let line = reading.line
            reading.line = []
            out += TraceDump.text(.recvHeader, line, ascii: ascii, stamp: stamp)
            if reading.firstLine {
                reading.firstLine = false
                // "HTTP/1.1 1xx": an interim response; another head follows (101 ends HTTP).
                let status = line.count >= 12 ? Array(line[9..<12]) : []
                reading.interim = status.first == 0x31 && status != Array("101".utf8)
            } else if line == [0x0D, 0x0A] || line == [0x0A] {
                if reading.interim {
                    reading.firstLine = true
                    reading.interim = false
                } else {
                    reading.inHead = false
                }
            }
        }
        return out
    }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        switch path {
        case "-": try? StandardStreams.writeOutput(text)
        case "%": StandardStreams.writeError(text)
        default:
            let wrote: Bool = state.withLock { s in
                if !s.opened {
                    s.opened = true
                    s.file = try? File.open(path, access: .writeOnly, create: true, truncate: true, mode: 0o666)
                }
                guard let file = s.file else { return false }
                let buffer = ByteBuffer(string: text)
                do { try file.write(buffer, at: s.offset) } catch { return true }
                s.offset += Int64(buffer.readableBytes)
                return true
            }
            if !wrote { StandardStreams.writeError(text) }
        }
    }
}
