"""A reader of spool's journal format, written from its specification
(spool-io's `journal` module docs) and independent of the Rust code: the
S3 tests read a run's `journal` and `begun-N` objects with it.

    journal  header record*
    header   "SPOOLJNL" | version u8 (1) | kind [u8; 8] | CRC-32C u32
    record   payload length u32 | payload | CRC-32C u32

An S3 run's records (kind "s3commit"): tag 1 = the run (manifest name,
replace u8); tag 2 = an upload (key, id, size u64, part count u32, ETags).
Strings carry a u32 length; integers are little-endian.
"""
import struct

_TABLE = []
for n in range(256):
    c = n
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    _TABLE.append(c)


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def records(data: bytes, kind: bytes):
    """Every whole record, in order; raises ValueError on a bad header or
    any bytes after the last whole record (an object is written whole)."""
    if data[:8] != b"SPOOLJNL" or len(data) < 21:
        raise ValueError("not a spool journal")
    if struct.unpack_from("<I", data, 17)[0] != crc32c(data[:17]):
        raise ValueError("damaged header")
    if data[8] != 1 or data[9:17] != kind.ljust(8, b"\0"):
        raise ValueError(f"version {data[8]}, kind {data[9:17]!r}")
    at, out = 21, []
    while at < len(data):
        (length,) = struct.unpack_from("<I", data, at)
        end = at + 4 + length
        if end + 4 > len(data) or struct.unpack_from("<I", data, end)[0] != crc32c(data[at:end]):
            raise ValueError(f"damaged record at byte {at}")
        out.append(data[at + 4:end])
        at = end + 4
    return out


class _Fields:
    def __init__(self, payload: bytes):
        self.payload, self.at = payload, 0

    def u8(self):
        self.at += 1
        return self.payload[self.at - 1]

    def u32(self):
        self.at += 4
        return struct.unpack_from("<I", self.payload, self.at - 4)[0]

    def u64(self):
        self.at += 8
        return struct.unpack_from("<Q", self.payload, self.at - 8)[0]

    def str(self):
        n = self.u32()
        self.at += n
        return self.payload[self.at - n:self.at].decode()


def s3_uploads(data: bytes):
    """The (key, upload id) of each upload an S3 run's `journal` or
    `begun-N` names."""
    uploads = []
    for record in records(data, b"s3commit"):
        fields = _Fields(record)
        if fields.u8() == 2:
            uploads.append((fields.str(), fields.str()))
    return uploads


def s3_journal(manifest: str, replace: bool) -> bytes:
    """A run's journal naming no upload (what a run killed before its first
    upload would leave, for tests that stage one by hand)."""
    payload = bytes([1]) + struct.pack("<I", len(manifest)) + manifest.encode() + bytes([int(replace)])
    header = b"SPOOLJNL" + bytes([1]) + b"s3commit"
    header += struct.pack("<I", crc32c(header))
    frame = struct.pack("<I", len(payload)) + payload
    return header + frame + struct.pack("<I", crc32c(frame))
