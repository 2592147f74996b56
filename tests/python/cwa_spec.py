"""Axivity CWA blocks built with `struct` from OpenMovement's published format (Docs/ax3/cwa.h of
openmovementproject/openmovement), for the hostile and interop tests: written from the spec, not
from motionprep's Swift code."""
import struct

HEADER_BYTES, BLOCK_BYTES = 1024, 512


def packed_time(year, month, day, hour=0, minute=0, second=0):
    """(MSB) YYYYYYMM MMDDDDDh hhhhmmmm mmssssss (LSB), the year from 2000."""
    return (year - 2000) << 26 | month << 22 | day << 17 | hour << 12 | minute << 6 | second


def header(ax6=False, device=4321, session=99, rate_code=0x4A):
    h = bytearray(b"\x00" * HEADER_BYTES)
    struct.pack_into("<2sHBHIH", h, 0, b"MD", 1020, 0x64 if ax6 else 0x17, device & 0xFFFF, session, device >> 16)
    h[35] = 3 if ax6 else 0
    h[36] = rate_code
    return bytes(h)


def block(sequence, timestamp, samples, axes=3, offset=0, fraction15=None, light_scale=0, temperature=256,
          rate_code=0x4A, session=99):
    """A data block of int16 samples (3 or 6 per sample), its checksum set so the 256 words sum to 0."""
    b = bytearray(b"\x00" * BLOCK_BYTES)
    struct.pack_into("<2sHHIIIHHBBBBhH", b, 0, b"AX", 508, 0 if fraction15 is None else 0x8000 | fraction15,
                     session, sequence, timestamp, light_scale, temperature, 0, 190, rate_code, axes << 4 | 2,
                     offset, len(samples))
    for i, s in enumerate(samples):
        struct.pack_into("<%dh" % axes, b, 30 + i * 2 * axes, *s)
    total = sum(struct.unpack_from("<255H", b, 0)) & 0xFFFF
    struct.pack_into("<H", b, 510, (-total) & 0xFFFF)
    return bytes(b)


def recording(blocks=10, per_block=80, start=None):
    """A clean AX3 file: `blocks` unpacked blocks of `per_block` samples at 100 Hz, one second apart
    per 100 samples (each block's timestamp is its first sample's, whole seconds only when aligned)."""
    start = start or (2024, 3, 1, 9, 0, 0)
    out = header()
    base = packed_time(*start)
    for k in range(blocks):
        first = k * per_block
        out += block(k, base + first // 100, [(i % 50, -(i % 30), 256) for i in range(per_block)],
                     offset=-(first % 100))
    return out
