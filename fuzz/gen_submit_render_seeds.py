#!/usr/bin/env python3
"""Writes the seeds of the `submit_render` fuzz target into
fuzz/seeds/submit_render/: valid render-callback submissions (clears,
draws from the vertex buffer and inline, indexed draws, every topology,
state registers, queries, presents, a copy-engine copy, several
submissions in a row, NULL rendering, resizes, a command offset, an
extended header) and a few that the kernel must refuse (a privileged
packet, a bad allocation index, a cut packet, a locked or destroyed
allocation).

The input layout is documented at the top of
fuzz/fuzz_targets/submit_render.rs; the packets in docs/gpu-commands.md.
Check what the kernel answers with

    SUBMIT_RENDER_TRACE=1 cargo +nightly fuzz run submit_render seeds/submit_render -- -runs=0

Usage: python3 fuzz/gen_submit_render_seeds.py
"""
import os
import struct

NONE = 0xFFFFFFFF
# The harness's allocation choices.
RT, DEPTH, VB, LOCKED, GONE = 0, 1, 2, 3, 4
# Opcodes.
NOP, SET_REGS, BIND, VFMT, SET_VERTS, VERTS_INLINE = 1, 2, 3, 4, 5, 6
SET_IDX, IDX_INLINE, DRAW, CLEAR, COPY, QUERY, PRESENT = 7, 8, 9, 10, 11, 12, 13
FENCE_SIGNAL = 0x80
# Registers (docs/gpu-commands.md, "Register file"): render states are
# their D3DRS numbers; the scissor and viewport banks are softhal's.
CULL_MODE, SCISSOR_ENABLE, SCISSOR_X1 = 22, 174, 0x4160
Z_ENABLE, Z_FUNC, STENCIL_ENABLE = 7, 23, 52
BLEND_ENABLE, SRC_BLEND, DEST_BLEND = 27, 19, 20
VIEWPORT_X = 0x4120


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


class Packets:
    def __init__(self, offset=0):
        self.dw = [0] * (offset // 4)  # bytes before CommandOffset
        self.refs = []  # (byte offset, allocation-list index)

    def head(self, op, flags, n):
        self.dw.append(op | flags << 8 | n << 16)

    def raw(self, op, payload, flags=0):
        self.head(op, flags, len(payload) + 1)
        self.dw += payload

    def ref(self, index):
        self.refs.append((len(self.dw) * 4, index))
        self.dw.append(0)

    def regs(self, pairs):
        self.raw(SET_REGS, [v for p in pairs for v in p])

    def bind(self, color, depth=None):
        self.head(BIND, 1 if depth is not None else 0, 3)
        self.ref(color)
        if depth is None:
            self.dw.append(0)
        else:
            self.ref(depth)

    def clear(self, flags, color, z=1.0, stencil=0, rects=()):
        payload = [flags, color, f32(z), stencil, len(rects)]
        for r in rects:
            payload += [v & 0xFFFFFFFF for v in r]
        self.raw(CLEAR, payload)

    def tl_format(self):
        self.raw(VFMT, [20, 1, 0, NONE, 0, NONE, NONE, 16, NONE] + [NONE] * 8)

    def set_vertices(self, index, offset, size):
        self.head(SET_VERTS, 0, 4)
        self.ref(index)
        self.dw += [offset, size]

    def inline(self, op, pre, data):
        words = (len(data) + 3) // 4
        self.head(op, 0, 2 + len(pre) + words)
        self.dw += [len(data)] + pre
        data = data + b"\0" * (words * 4 - len(data))
        self.dw += list(struct.unpack("<%dI" % words, data))

    def draw(self, topology, first, count, base=0, indexed=False):
        self.raw(DRAW, [topology, first, count, base & 0xFFFFFFFF], 1 if indexed else 0)

    def copy(self, src, so, dst, do, n):
        self.head(COPY, 0, 6)
        self.ref(src)
        self.dw.append(so)
        self.ref(dst)
        self.dw += [do, n]

    def present(self, index):
        self.head(PRESENT, 0, 2)
        self.ref(index)

    def bytes(self):
        return struct.pack("<%dI" % len(self.dw), *self.dw)


def tl(x, y, z, color):
    return struct.pack("<ffffI", x, y, z, 1.0, color)


def submission(p, allocs, ctl=0, offset=0, resize=None, lie=None, ctx=None):
    """The harness's encoding of one submission."""
    if offset:
        ctl |= 32
    if resize:
        ctl |= 8
    if lie:
        ctl |= 16
    if ctx is not None:
        ctl |= 3
    out = bytes([ctl])
    if ctx is not None:
        out += struct.pack("<I", ctx)
    if resize:
        out += bytes([resize[0]]) + struct.pack("<III", *resize[1:])
    if lie:
        out += struct.pack("<bbb", *lie)
    if offset:
        out += struct.pack("<H", offset)
    out += bytes([len(allocs)])
    for which, value in allocs:
        out += bytes([which, value])
    out += bytes([len(p.refs)])
    for at, index in p.refs:
        out += bytes([index]) + struct.pack("<H", at) + b"\0"
    cmd = p.bytes()
    out += struct.pack("<H", len(cmd)) + cmd
    return out


TARGETS = [(RT, 1), (DEPTH, 1), (VB, 0)]


def scene(p, clear=0xFF203040, regs=()):
    p.regs([(CULL_MODE, 1), (Z_ENABLE, 1)] + list(regs))
    p.bind(0, 1)
    p.clear(3, clear)
    p.tl_format()


def seeds():
    s = {}
    p = Packets()
    p.bind(0, 1)
    p.clear(7, 0xFF00FF00, 0.5, 3)
    s["clear"] = submission(p, TARGETS[:2])

    p = Packets()
    p.bind(0)
    p.clear(1, 0xFFFF00FF, rects=[(0, 0, 8, 8), (4, -3, 40, 12)])
    s["clear-rects"] = submission(p, TARGETS[:1])

    p = Packets()
    scene(p)
    p.set_vertices(2, 0, 480)
    p.draw(4, 0, 8)
    s["draw-vertex-buffer"] = submission(p, TARGETS)

    for topology, count, name in [(1, 20, "points"), (2, 10, "lines"), (3, 19, "line-strip"),
                                  (5, 18, "triangle-strip"), (6, 18, "triangle-fan")]:
        p = Packets()
        scene(p)
        p.set_vertices(2, 20, 400)
        p.draw(topology, 0, count)
        s["draw-" + name] = submission(p, TARGETS)

    verts = tl(0, 0, 0.25, 0xFFFF0000) + tl(16, 0, 0.25, 0xFF00FF00) + tl(0, 16, 0.75, 0xFF0000FF) + tl(16, 16, 0.5, 0xFFFFFFFF)
    p = Packets()
    scene(p)
    p.inline(VERTS_INLINE, [], verts)
    p.inline(IDX_INLINE, [2], struct.pack("<6H", 0, 1, 2, 2, 1, 3))
    p.draw(4, 0, 2, 0, indexed=True)
    s["draw-inline-indexed"] = submission(p, TARGETS[:2])

    p = Packets()
    scene(p)
    p.set_vertices(2, 0, 500)
    p.head(SET_IDX, 0, 5)
    p.ref(2)
    p.dw += [0, 64, 4]
    p.draw(4, 0, 5, 1, indexed=True)
    s["draw-indexed-buffer"] = submission(p, TARGETS)

    p = Packets()
    scene(p, regs=[(BLEND_ENABLE, 1), (SRC_BLEND, 5), (DEST_BLEND, 6), (SCISSOR_ENABLE, 1),
                   (SCISSOR_X1, 2), (SCISSOR_X1 + 1, 2), (SCISSOR_X1 + 2, 12), (SCISSOR_X1 + 3, 14),
                   (Z_FUNC, 8), (STENCIL_ENABLE, 1), (VIEWPORT_X, 1), (VIEWPORT_X + 1, 1),
                   (VIEWPORT_X + 2, 14), (VIEWPORT_X + 3, 14), (VIEWPORT_X + 4, f32(0.0)),
                   (VIEWPORT_X + 5, f32(1.0))])
    p.set_vertices(2, 0, 480)
    p.draw(4, 0, 8)
    s["draw-blend-scissor-viewport"] = submission(p, TARGETS)

    p = Packets()
    scene(p)
    p.raw(QUERY, [0, 7])
    p.set_vertices(2, 0, 480)
    p.draw(4, 0, 8)
    p.raw(QUERY, [1, 7])
    p.present(0)
    s["query-present"] = submission(p, [(RT, 1), (DEPTH, 1), (VB, 0)])

    p = Packets()
    p.copy(0, 0, 1, 256, 200)
    p.raw(NOP, [1, 2, 3])
    s["copy-engine"] = submission(p, [(VB, 0), (VB, 1)], ctl=2)

    first = Packets()
    first.bind(0, 1)
    first.clear(3, 0xFF101010)
    second = Packets()
    second.regs([(CULL_MODE, 1)])
    second.bind(0, 1)
    second.tl_format()
    second.set_vertices(2, 0, 240)
    second.draw(4, 0, 4)
    third = Packets()
    third.bind(0)
    third.clear(1, 0xFFFFFFFF)
    s["three-submissions"] = (submission(first, TARGETS[:2]) + submission(second, TARGETS)
                              + submission(third, TARGETS[:1], ctl=4))

    p = Packets(offset=16)
    scene(p)
    p.set_vertices(2, 0, 60)
    p.draw(4, 0, 1)
    s["command-offset"] = submission(p, TARGETS, offset=16)

    p = Packets()
    p.head(NOP, 0, 0)  # extended header
    p.dw += [5, 0, 0, 0]
    p.bind(0)
    p.clear(1, 0xFF0000FF)
    s["extended-header-and-resize"] = submission(p, TARGETS[:1], resize=(7, 1 << 20, 512, 2048))

    # Refused.
    p = Packets()
    p.bind(0)
    p.clear(1, 0xFFFF0000)
    p.raw(FENCE_SIGNAL, [1, 100, 0])
    s["refused-privileged"] = submission(p, TARGETS[:1])

    p = Packets()
    scene(p)
    p.set_vertices(2, 0, 60)
    p.draw(4, 0, 1)
    p.refs[-1] = (p.refs[-1][0], 9)
    s["refused-bad-index"] = submission(p, TARGETS)

    p = Packets()
    scene(p)
    p.set_vertices(2, 0, 60)
    p.draw(4, 0, 1)
    s["refused-cut-packet"] = submission(p, TARGETS, lie=(-4, 0, 0))

    p = Packets()
    p.bind(0)
    p.clear(1, 0xFFFF0000)
    s["refused-locked"] = submission(p, [(LOCKED, 1)])
    s["refused-destroyed"] = submission(p, [(GONE, 1)])
    s["refused-unknown-context"] = submission(p, [(RT, 1)], ctx=77)
    return s


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "submit_render")
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
