#!/usr/bin/env python3
"""Hostile HTTP/1.1 replies for Courier's interop tests, chosen by the request path.

  /reset        head with Content-Length: 1000, 10 body bytes, then a TCP reset (SO_LINGER 0)
  /stall        reads the request and never answers (the client's idle timeout must fire)
  /truncated    head with Content-Length: 100, 10 body bytes, then a clean close
  /empty        closes without sending a byte (curl's "empty reply")
  /idle-close   answers keep-alive, then closes the idle connection after 100 ms
  anything else 200 with a 2-byte body

Binds 127.0.0.1 only; prints the port on stdout; exits after --lifetime seconds.
"""
import argparse
import socket
import struct
import threading
import time


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > 65536:
            return None
    return data.split(b"\r\n", 1)[0].decode("latin-1")


def handle(conn):
    try:
        conn.settimeout(30)
        while True:
            line = read_head(conn)
            if line is None:
                return
            path = line.split(" ")[1] if " " in line else "/"
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
