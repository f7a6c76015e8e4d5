#!/usr/bin/env python3
"""Writes the seeds of the `shader_exec` fuzz target into
fuzz/seeds/shader_exec/: per shader version, three inputs whose first
byte picks the version (`generate::profile_of`: the index in
`Profile::ALL`) and whose other bytes are the grammar's choices and then
the run's inputs (`softhal_shader::generate`). Any bytes make a valid
program, so the seeds are pseudo-random bytes (the LCG of the generator's
unit tests, Knuth's MMIX constants) of three lengths: a short program
with most inputs left at 0, a medium one, and one long enough for the
grammar's budget and every input.

Usage: python3 fuzz/gen_shader_exec_seeds.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "seeds", "shader_exec")
PROFILES = ["vs_1_1", "vs_2_0", "vs_2_x", "vs_3_0", "ps_1_1", "ps_1_2",
            "ps_1_3", "ps_1_4", "ps_2_0", "ps_2_x", "ps_3_0"]
LENGTHS = {"short": 48, "medium": 600, "long": 4000}


def lcg_bytes(seed, n):
    state = seed
    out = bytearray()
    for _ in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(state >> 56)
    return bytes(out)


def main():
    os.makedirs(OUT, exist_ok=True)
    for index, name in enumerate(PROFILES):
        for k, (size, length) in enumerate(LENGTHS.items()):
            data = bytes([index]) + lcg_bytes(1000 * index + k + 1, length)
            with open(os.path.join(OUT, f"{name}-{size}"), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
