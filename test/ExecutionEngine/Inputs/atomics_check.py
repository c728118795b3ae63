"""Inputs and the independent check of atomics.tile.

gen DIR: writes the kernel's input and accumulator buffers.
check DIR: recomputes every result in Python from the inputs and compares
with what `tilec run --output` wrote; prints one line per check.
"""
import random
import struct
import sys

N, BLOCK, PROGRAMS = 200, 64, 4  # 4 programs of 64 cover 256 > N


def write(path, fmt, values):
    with open(path, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read(path, fmt):
    data = open(path, "rb").read()
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def gen(d):
    rnd = random.Random(7)
    x = [f32(rnd.random()) for _ in range(256)]
    write(d + "/x.bin", "f", x)
    write(d + "/hist.bin", "i", [0] * 8)
    write(d + "/total.bin", "f", [0.0])
    write(d + "/lastidx.bin", "i", [-1] * 8)
    write(d + "/fmin.bin", "f", [2.0] * 8)
    write(d + "/bits.bin", "I", [0, 0])
    write(d + "/swap.bin", "f", [f32(-i) for i in range(256)])
    write(d + "/old.bin", "f", [0.0] * 256)
    write(d + "/claim.bin", "i", [0] * 4 + [7] * 4)
    write(d + "/wins.bin", "i", [0] * 256)


def check(d):
    x = read(d + "/x.bin", "f")[:N]
    bins = [int(v * 8) for v in x]
    ok = True

    def expect(name, got, want, tol=0.0):
        nonlocal ok
        good = all(abs(g - w) <= tol * max(1.0, abs(w)) for g, w in zip(got, want)) and len(got) == len(want)
        ok &= good
        print("%s: %s" % (name, "ok" if good else "MISMATCH got %s want %s" % (got, want)))

    expect("atomic_add i32", read(d + "/hist.out", "i"), [bins.count(b) for b in range(8)])
    expect("atomic_add f32 scalar", read(d + "/total.out", "f"), [sum(x)], 1e-5)
    expect("atomic_max i32", read(d + "/lastidx.out", "i"),
           [max([i for i in range(N) if bins[i] == b], default=-1) for b in range(8)])
    expect("atomic_min f32", read(d + "/fmin.out", "f"),
           [min([x[i] for i in range(N) if bins[i] == b], default=2.0) for b in range(8)])
    bits = read(d + "/bits.out", "I")
    xor = 0
    for i in range(N):
        xor ^= i
    expect("atomic_or/atomic_xor u32", bits, [(1 << PROGRAMS) - 1, xor])
    expect("atomic_xchg f32", read(d + "/swap.out", "f")[:N], [f32(2 * v) for v in x])
    expect("atomic_xchg old", read(d + "/old.out", "f")[:N], [f32(-i) for i in range(N)])
    # cas: claim[k] for k < 4 starts 0, so exactly one program wins each
    # slot (its pid + 1 is left there); claim[4..7] starts 7: nobody wins.
    claim = read(d + "/claim.out", "i")
    wins = read(d + "/wins.out", "i")
    won = [p for p in range(PROGRAMS) for k in range(8) if wins[p * BLOCK + k] == 1]
    good = (all(1 <= c <= PROGRAMS for c in claim[:4]) and claim[4:] == [7] * 4
            and sorted(won) == sorted(c - 1 for c in claim[:4]))
    ok &= good
    print("atomic_cas: %s" % ("ok" if good else "MISMATCH claim %s wins %s" % (claim, won)))
    print("atomics: %s" % ("all checks passed" if ok else "FAILED"))


if __name__ == "__main__":
    {"gen": gen, "check": check}[sys.argv[1]](sys.argv[2])
