"""Independent reference for random.tile (tl.randint/rand/randn and the 4x forms).

Pure Python (no numpy), written from the Philox 4x32/4x64 definition
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC11) and
Triton's conversions to floats. Checked against Random123's known-answer
vectors first.

  philox_ref.py check DIR SEED [--tol T]
      reads the .bin files that `tilec run --output` wrote into DIR for one
      seed and compares: integers bit-exactly, uniform floats bit-exactly,
      normals within T (absolute, plus T relative; default 1e-5).
Prints one `name: ok` / `name: FAIL ...` line per check; exit 1 on failure.
"""
import math
import struct
import sys

# The kernel's shape (random.tile): 2 programs of 64 elements.
N = 128
CONST_SEED = 1234

PHILOX = {
    32: (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85),
    64: (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B),
}


def philox(width, ctr, key, rounds=10):
    mask = (1 << width) - 1
    mul0, mul1, bump0, bump1 = PHILOX[width]
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for _ in range(rounds):
        p0, p1 = mul0 * c0, mul1 * c2
        c0, c1, c2, c3 = ((p1 >> width) ^ c1 ^ k0) & mask, p1 & mask, ((p0 >> width) ^ c3 ^ k1) & mask, p0 & mask
        k0, k1 = (k0 + bump0) & mask, (k1 + bump1) & mask
    return c0, c1, c2, c3


def randint4x(seed, offset, width=32, rounds=10):
    """Triton 3: seed as uint64 (two's complement), key (lo, hi); Philox 4x32
    on the counter (offset_lo, offset_hi, 0, 0), offset_hi the high word of a
    64-bit offset (0 for a 32-bit one)."""
    seed &= (1 << 64) - 1
    offset &= (1 << width) - 1
    key = (seed & 0xFFFFFFFF, seed >> 32)
    return philox(32, (offset & 0xFFFFFFFF, offset >> 32, 0, 0), key, rounds)


def int_to_f32(x):
    """Round an integer to the nearest fp32 (ties to even), once."""
    sign, x = (-1 if x < 0 else 1), abs(x)
    shift = x.bit_length() - 24
    if shift > 0:
        q, r = divmod(x, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        x = q << shift
    return sign * float(x)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def uniform(u, width=32):
    """Triton's uint_to_uniform_float: read as signed, fold negatives, scale."""
    x = u - (1 << width) if u >> (width - 1) else u
    if x < 0:
        x = -x - 1
    scale = f32(4.6566127342e-10 if width == 32 else 1.0842020432385337e-19)
    # The product of two fp32 values is exact in a double; one rounding to fp32.
    return f32(int_to_f32(x) * scale)


def normal_pair(u1, u2):
    u1 = max(f32(1.0e-7), u1)
    th = f32(f32(6.283185307179586) * u2)
    r = math.sqrt(-2.0 * math.log(u1))
    return r * math.cos(th), r * math.sin(th)


def selftest():
    # Random123's kat_vectors for philox4x32_10.
    kat = [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
         (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    ]
    return all(philox(32, c, k) == want for c, k, want in kat)


def read(path, fmt):
    data = open(path, "rb").read()
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def check(d, seed, tol):
    ok = True

    def report(name, good, detail=""):
        nonlocal ok
        ok &= good
        print("%s: %s" % (name, "ok" if good else "FAIL " + detail))

    def exact(name, got, want):
        bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
        good = len(got) == len(want) and not bad
        detail = "length %d, want %d" % (len(got), len(want)) if len(got) != len(want) else ""
        if bad:
            i = bad[0]
            detail = "%d of %d differ, first at %d: got %r want %r" % (len(bad), len(want), i, got[i], want[i])
        report(name, good, detail)

    def close(name, got, want):
        errs = [abs(g - w) - tol * abs(w) for g, w in zip(got, want)]
        bad = [i for i, e in enumerate(errs) if not e <= tol]
        detail = "%d of %d beyond %g, first at %d: got %r want %r" % (
            len(bad), len(want), tol, bad[0], got[bad[0]], want[bad[0]]) if bad else ""
        report(name, len(got) == len(want) and not bad, detail)

    report("philox reference known answers", selftest())
    offs = [(i * 7919) & 0xFFFFFFFF for i in range(N)]  # the kernel's counters
    r4 = [randint4x(seed, o) for o in offs]
    exact("randint", read(d + "/int.bin", "I"), [r[0] for r in r4])
    exact("randint4x", read(d + "/int4.bin", "I"), [r[j] for r in r4 for j in range(4)])
    exact("rand", read(d + "/uni.bin", "f"), [uniform(r[0]) for r in r4])
    exact("rand4x", read(d + "/uni4.bin", "f"), [uniform(r[j]) for r in r4 for j in range(4)])
    close("randn", read(d + "/nrm.bin", "f"), [normal_pair(uniform(r[0]), uniform(r[1]))[0] for r in r4])
    close("randn4x", read(d + "/nrm4.bin", "f"),
          [n for r in r4 for n in normal_pair(uniform(r[0]), uniform(r[1])) + normal_pair(uniform(r[2]), uniform(r[3]))])
    offs64 = [i * 0x100000001 for i in range(N)]
    r64 = [randint4x(seed, o, width=64) for o in offs64]
    exact("randint int64 offsets", read(d + "/int64.bin", "Q"), [r[0] for r in r64])
    exact("rand int64 offsets", read(d + "/uni64.bin", "f"), [uniform(r[0]) for r in r64])
    exact("randint n_rounds=7", read(d + "/r7.bin", "I"), [randint4x(seed, o, rounds=7)[0] for o in offs])
    seed32 = (seed & 0xFFFFFFFF) - ((seed & 0x80000000) << 1)  # seed.to(tl.int32)
    exact("randint int32 seed", read(d + "/seed32.bin", "I"), [randint4x(seed32, o)[0] for o in offs])
    exact("randint constexpr seed", read(d + "/cseed.bin", "I"), [randint4x(CONST_SEED, o)[0] for o in offs])
    exact("randint scalar offset", read(d + "/scalar.bin", "I"), [randint4x(seed, p + 3, rounds=3)[0] for p in range(2)])
    return ok


def main(argv):
    if len(argv) >= 3 and argv[0] == "check":
        tol = float(argv[argv.index("--tol") + 1]) if "--tol" in argv else 1e-5
        return 0 if check(argv[1], int(argv[2], 0), tol) else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
