#!/usr/bin/env python3
"""A keep-alive HTTP/1.1 origin for the session benchmarks, in its own process so the malloc
counts of the benchmark process are the client's alone.

    origin.py PORT_FILE   listens on 127.0.0.1 (an ephemeral port, written to PORT_FILE) until
                          its standard input closes.

Routes: GET /bytes/N answers 200 with Content-Length: N and N bytes of the pattern
("a" + i mod 26); anything else 404. Requests are read with their heads only (no bodies).
"""
import asyncio
import sys

PATTERN = bytes((ord("a") + i % 26) for i in range(1 << 20))


async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            line = head.split(b"\r\n", 1)[0].split(b" ")
            target = line[1].decode() if len(line) > 1 else ""
            if target.startswith("/bytes/") and target[7:].isdigit() and int(target[7:]) <= len(PATTERN):
                n = int(target[7:])
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % n + PATTERN[:n])
            else:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main(port_file):
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    with open(port_file, "w") as f:
        f.write(str(port))
    loop = asyncio.get_running_loop()
    stdin_closed = loop.create_future()
    loop.add_reader(sys.stdin.fileno(), lambda: stdin_closed.done() or (sys.stdin.buffer.read1(1) or stdin_closed.set_result(None)))
    await stdin_closed


asyncio.run(main(sys.argv[1]))
