#!/usr/bin/env python3
"""Draws the event-ticket template's PNG images (icon, logo, strip at @1x/@2x/@3x).

Only the standard library (zlib + struct): the output is byte-for-byte reproducible for a given
zlib, so the committed PNGs can be regenerated and compared. Shapes are defined on normalised
coordinates, so every scale shows the same picture.

Usage: scripts/make-images.py [template-directory]   (default: Passes/event-ticket)
"""
import math
import os
import struct
import sys
import zlib

NAVY = (28, 36, 64)
AMBER = (255, 196, 80)
WHITE = (255, 255, 255)


def png(width, height, pixel, alpha):
    """Encodes an image; pixel(u, v) returns (r, g, b, a) for pixel centres in [0, 1].

    Rows use the "Sub" filter: smooth gradients then deflate to a fraction of their raw size,
    keeping every .pkpass small.
    """
    channels = 4 if alpha else 3
    rows = bytearray()
    for y in range(height):
        v = (y + 0.5) / height
        raw = bytearray()
        for x in range(width):
            raw.extend(pixel((x + 0.5) / width, v)[:channels])
        rows.append(1)  # filter: Sub (difference to the pixel on the left)
        rows.extend((raw[i] - (raw[i - channels] if i >= channels else 0)) & 0xFF for i in range(len(raw)))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    colour_type = 6 if alpha else 2  # RGBA or RGB, 8 bits per channel
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")


def mix(a, b, t):
    return tuple(int(round(a[i] + (b[i] - a[i]) * t)) for i in range(3))


def icon(u, v):
    """A white ticket with round notches on a navy square."""
    inside = 0.18 < u < 0.82 and 0.28 < v < 0.72
    notch = math.hypot(u - 0.18, v - 0.5) < 0.08 or math.hypot(u - 0.82, v - 0.5) < 0.08
    perforation = abs(u - 0.62) < 0.015 and int(v * 20) % 2 == 0
    if inside and not notch and not perforation:
        return (*WHITE, 255)
    return (*NAVY, 255)


def logo(u, v):
    """A circle mark and three bars, on transparent background (logo sits on the pass colour)."""
    x, y = u * 3.2, v  # logo is 3.2:1
    if math.hypot(x - 0.5, y - 0.5) < 0.36:
        return (*AMBER, 255)
    for index, length in enumerate((2.5, 2.1, 2.3)):
        top = 0.22 + index * 0.22
        if 1.0 < x < 1.0 + (length - 1.0) and top < y < top + 0.12:
            return (*WHITE, 255)
    return (0, 0, 0, 0)


def strip(u, v):
    """A diagonal navy-to-plum gradient with stage-light stripes.

    Colours are quantised to steps of 8 so rows repeat and the PNG stays a few kilobytes: every
    .pkpass carries all three strips, and smaller bundles are faster to hash, zip and download.
    """
    t = min(1.0, max(0.0, 0.65 * u + 0.35 * v))
    base = mix(NAVY, (120, 60, 110), t)
    beam = 0.5 + 0.5 * math.cos((u * 3.0 - v * 1.2) * math.pi * 2)
    light = beam ** 8 * (1.0 - v) * 0.6
    colour = mix(base, AMBER, light)
    return (*(min(255, (c // 8) * 8 + 4) for c in colour), 255)


IMAGES = [
    ("icon", (29, 29), icon, False),
    ("logo", (160, 50), logo, True),
    ("strip", (375, 123), strip, False),
]


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Passes", "event-ticket")
    for name, (width, height), draw, alpha in IMAGES:
        for scale, suffix in ((1, ""), (2, "@2x"), (3, "@3x")):
            path = os.path.join(directory, f"{name}{suffix}.png")
            with open(path, "wb") as handle:
                handle.write(png(width * scale, height * scale, draw, alpha))
            print(path)


if __name__ == "__main__":
    main()
