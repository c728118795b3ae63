"""Inputs and the independent check of atomics-wide.tile.

gen DIR: writes the kernel's input and accumulator buffers.
check DIR: recomputes every result in Python from the inputs and compares
with what `tilec run --output` wrote; prints one line per check.
Standard library only (struct's 'e' is fp16; bf16 is the top half of an
fp32).
"""
import random
import struct
import sys

from atomics_check import f32, read, write  # the same directory

N, BLOCK, PROGRAMS = 200, 64, 4  # 4 programs of 64 cover 256 > N


def f16(v):
    return struct.unpack("<e", struct.pack("<e", v))[0]


def bf16_bits_to_float(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def gen(d):
    rnd = random.Random(11)
    # Values in [-1, 1), none exactly on a bin edge of (x + 1) * 4.
    x = [f32(rnd.uniform(-0.999, 0.999)) for _ in range(256)]
    write(d + "/x.bin", "f", x)
    write(d + "/h16.bin", "e", [0.0] * 8)
    write(d + "/hbf.bin", "H", [0] * 8)
    write(d + "/hi16.bin", "h", [0] * 8)
    write(d + "/fext.bin", "f", [-2.0] * 8 + [2.0] * 8)
    write(d + "/i64.bin", "q", [5] * 8)
    write(d + "/hmax.bin", "H", [0xFC00] * 8)  # -inf
    write(d + "/cas16.bin", "h", [0] * 8 + [9] * 8)
    write(d + "/wins.bin", "i", [-1] * (PROGRAMS * 16))
    write(d + "/counter.bin", "i", [0])
    write(d + "/tickets.bin", "i", [-1] * PROGRAMS)


def check(d):
    x = read(d + "/x.bin", "f")[:N]
    bins = [int((f32(v + 1.0)) * 4.0) for v in x]
    members = [[i for i in range(N) if bins[i] == b] for b in range(8)]
    ok = True

    def expect(name, got, want, tol=0.0):
        nonlocal ok
        good = len(got) == len(want) and all(
            abs(g - w) <= tol * max(1.0, abs(w)) for g, w in zip(got, want))
        ok &= good
        print("%s: %s" % (name, "ok" if good else "MISMATCH got %s want %s" % (got, want)))

    counts = [len(m) for m in members]
    expect("atomic_add fp16", read(d + "/h16.out", "e"), [0.25 * c for c in counts])
    expect("atomic_add bf16", [bf16_bits_to_float(b) for b in read(d + "/hbf.out", "H")],
           [float(c) for c in counts])
    expect("atomic_add int16", read(d + "/hi16.out", "h"), counts)
    fext = read(d + "/fext.out", "f")
    expect("atomic_max fp32", fext[:8], [max([x[i] for i in m], default=-2.0) for m in members])
    expect("atomic_min fp32", fext[8:], [min([x[i] for i in m], default=2.0) for m in members])
    expect("atomic_add int64", read(d + "/i64.out", "q"),
           [5 + sum(i * 4294967296 + 1 for i in m) for m in members])
    hmax = [struct.unpack("<e", struct.pack("<H", b))[0] for b in read(d + "/hmax.out", "H")]
    expect("atomic_max fp16", hmax,
           [max([f16(x[i]) for i in m], default=float("-inf")) for m in members])
    # cas: slots 0..7 start 0, so exactly one program wins each (its
    # pid + 1 is left there); slots 8..15 start 9: nobody wins.
    cas = read(d + "/cas16.out", "h")
    wins = read(d + "/wins.out", "i")
    won = sorted(p for p in range(PROGRAMS) for k in range(16) if wins[p * 16 + k] == 1)
    good = (all(1 <= c <= PROGRAMS for c in cas[:8]) and cas[8:] == [9] * 8
            and set(wins) <= {0, 1} and won == sorted(c - 1 for c in cas[:8]))
    ok &= good
    print("atomic_cas int16: %s" % ("ok" if good else "MISMATCH cas %s wins %s" % (cas, wins)))
    tickets = read(d + "/tickets.out", "i")
    good = sorted(tickets) == list(range(PROGRAMS)) and read(d + "/counter.out", "i") == [PROGRAMS]
    ok &= good
    print("scalar atomic_add old values: %s" % ("ok" if good else "MISMATCH tickets %s" % tickets))
    print("atomics_wide: %s" % ("all checks passed" if ok else "FAILED"))
    return ok


if __name__ == "__main__":
    result = {"gen": gen, "check": check}[sys.argv[1]](sys.argv[2])
    sys.exit(0 if result is not False else 1)
