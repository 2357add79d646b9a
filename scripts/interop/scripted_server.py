#!/usr/bin/env python3
"""Hostile HTTP/1.1 replies for Courier's interop tests, chosen by the request path.

  /reset        head with Content-Length: 1000, 10 body bytes, then a TCP reset (SO_LINGER 0)
  /stall        reads the request and never answers (the client's idle timeout must fire)
  /truncated    head with Content-Length: 100, 10 body bytes, then a clean close
  /empty        closes without sending a byte (curl's "empty reply")
  /idle-close   answers keep-alive, then closes the idle connection after 100 ms
  Expect: 100-continue (each answers "got N early E wait MS": N body bytes read, E of them sent
  before the server's 100, MS from the head to the first body byte):
  /expect-ignore  never sends 100: reads the body (Content-Length or chunked) as it comes
  /expect-1xx     102 Processing and 103 Early Hints, a 300 ms pause, then 100 Continue
  /expect-417     417 to a request with Expect (and closes); reads the body of one without
  /expect-413     413 at once, before any body byte, then closes without reading the body
  anything else 200 with a 2-byte body

Binds 127.0.0.1 only; prints the port on stdout; exits after --lifetime seconds.
"""
import argparse
import socket
import struct
import threading
import time


def read_full_head(conn, data):
    """The head (as text) and the bytes read after it."""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


def field(head, name):
    for line in head.split("\r\n")[1:]:
        if ":" in line and line.split(":", 1)[0].strip().lower() == name:
            return line.split(":", 1)[1].strip()
    return None


def read_body(conn, head, rest):
    """Reads the request body (Content-Length or chunked): its length, the milliseconds from
    now to its first byte, and the bytes read after it."""
    started = time.time()
    first = None if not rest else 0.0
    data = rest

    def more():
        nonlocal data, first
        chunk = conn.recv(1 << 20)
        if not chunk:
            raise OSError("closed")
        if first is None:
            first = (time.time() - started) * 1000
        data += chunk

    if (field(head, "transfer-encoding") or "").lower() == "chunked":
        total = 0
        while True:
            while b"\r\n" not in data:
                more()
            line, data = data.split(b"\r\n", 1)
            size = int(line.split(b";")[0], 16)
            while len(data) < size + 2:
                more()
            total += size
            data = data[size + 2:]
            if size == 0:
                return total, first or 0.0, data
    length = int(field(head, "content-length") or "0")
    while len(data) < length:
        more()
    return length, first or 0.0, data[length:]


def handle_expect(conn, path, head, rest):
    """The Expect: 100-continue routes. Returns whether the connection stays open."""
    expects = (field(head, "expect") or "").lower() == "100-continue"
    early = len(rest)
    if path == "/expect-413":
        conn.sendall(b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo big\n")
        time.sleep(0.2)
        return False
    if path == "/expect-417" and expects:
        conn.sendall(b"HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return False
    if path == "/expect-1xx":
        conn.sendall(b"HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n")
        time.sleep(0.3)
        conn.setblocking(False)
        try:
            rest += conn.recv(1 << 20)
        except BlockingIOError:
            pass
        conn.setblocking(True)
        conn.settimeout(30)
        early = len(rest)
        if expects:
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    n, wait, _ = read_body(conn, head, rest)
    reply = f"got {n} early {early} wait {int(wait)}".encode()
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(reply)).encode() + b"\r\n\r\n" + reply)
    return True


def handle(conn):
    try:
        conn.settimeout(30)
        pending = b""
        while True:
            text, pending = read_full_head(conn, pending)
            if text is None:
                return
            line = text.split("\r\n", 1)[0]
            path = line.split(" ")[1] if " " in line else "/"
            if path.startswith("/expect-"):
                if not handle_expect(conn, path.split("?")[0], text, pending):
                    return
                pending = b""
                continue
            if path == "/reset":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 10)
                time.sleep(0.05)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            if path == "/stall":
                time.sleep(30)
                return
            if path == "/truncated":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b"x" * 10)
                return
            if path == "/empty":
                return
            if path == "/idle-close":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                time.sleep(0.1)
                return
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    except OSError:
        pass
    finally:
        conn.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lifetime", type=float, default=1800)
    args = parser.parse_args()
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    server.settimeout(1)
    print(server.getsockname()[1], flush=True)
    deadline = time.time() + args.lifetime
    while time.time() < deadline:
        try:
            conn, _ = server.accept()
        except socket.timeout:
            continue
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
