#!/usr/bin/env python3
"""Takes a screendump of QEMU's display through its monitor socket, then
quits QEMU, and writes the picture as an 8-bit grey PNG (the OLED is grey):

    screendump.py MONITOR_SOCKET TMP.ppm OUT.png
"""
import socket, struct, sys, time, zlib

monitor, ppm, png = sys.argv[1:4]

def command(sock, line):
    sock.sendall(line.encode() + b"\n")

sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(monitor)
sock.settimeout(10)
command(sock, f"screendump {ppm}")
# The monitor answers with a prompt once the dump is written.
data = b""
deadline = time.time() + 10
while data.count(b"(qemu)") < 2 and time.time() < deadline:
    try:
        chunk = sock.recv(4096)
    except socket.timeout:
        break
    if not chunk:
        break
    data += chunk
command(sock, "quit")
# QEMU closes the socket when it quits.
try:
    while sock.recv(4096):
        pass
except socket.timeout:
    pass
sock.close()

raw = open(ppm, "rb").read()
# P6 header: magic, width, height, maxval, each followed by whitespace.
fields, pos = [], 0
while len(fields) < 4:
    while raw[pos:pos + 1].isspace():
        pos += 1
    start = pos
    while not raw[pos:pos + 1].isspace():
        pos += 1
    fields.append(raw[start:pos])
pos += 1
if fields[0] != b"P6" or fields[3] != b"255":
    sys.exit(f"screendump.py: unexpected screendump format {fields}")
width, height = int(fields[1]), int(fields[2])
pixels = raw[pos:pos + width * height * 3]
# The OLED is grey: keep one channel.
rows = b"".join(b"\0" + pixels[y * width * 3:(y + 1) * width * 3:3] for y in range(height))

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

with open(png, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n")
    f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
    f.write(chunk(b"IDAT", zlib.compress(rows, 9)))
    f.write(chunk(b"IEND", b""))
print(f"screendump.py: wrote {png} ({width}x{height})", file=sys.stderr)
