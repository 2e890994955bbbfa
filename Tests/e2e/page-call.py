#!/usr/bin/env python3
"""One request over listd-web's live connection, as the page sends it: a WebSocket to /live with
the device's token as its subprotocol and the page's Origin, one JSON-RPC request, its reply printed.
Usage: page-call.py PORT TOKEN METHOD [PARAMS-JSON]"""
import json, socket, struct, sys

port, token, method = int(sys.argv[1]), sys.argv[2], sys.argv[3]
params = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall((f"GET /live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
           f"Origin: http://127.0.0.1:{port}\r\nSec-WebSocket-Protocol: listd-web, listd-web.token.{token}\r\n\r\n").encode())
data = b""
while b"\r\n\r\n" not in data:
    chunk = s.recv(4096)
    if not chunk:
        sys.exit("closed during the handshake")
    data += chunk
head, data = data.split(b"\r\n\r\n", 1)
if not head.startswith(b"HTTP/1.1 101"):
    sys.exit(head.decode(errors="replace").splitlines()[0])
payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
header = bytes([0x81]) + (bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + struct.pack(">H", len(payload)))
s.sendall(header + b"\0\0\0\0" + payload)
while True:
    while len(data) < 2:
        data += s.recv(65536)
    length, offset = data[1] & 0x7F, 2
    if length == 126:
        length, offset = struct.unpack(">H", data[2:4])[0], 4
    elif length == 127:
        length, offset = struct.unpack(">Q", data[2:10])[0], 10
    while len(data) < offset + length:
        data += s.recv(65536)
    opcode, frame, data = data[0] & 0x0F, data[offset:offset + length], data[offset + length:]
    if opcode == 8:
        sys.exit("closed: " + frame[2:].decode(errors="replace"))
    if opcode == 1:
        message = json.loads(frame)
        if message.get("id") == 1:
            print(json.dumps(message))
            break
