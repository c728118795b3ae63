"""Delta reduction of a failing program (issue 15).

Greedy passes over a copy of the program, each kept when the smaller
program is still well defined (its reference evaluates without undefined
behaviour) and still fails the same way on the same backend: drop stores;
replace every use of a node by one of its operands or an earlier leaf of
the same dtype and shape (which deletes the node and, transitively, what
only it used); simplify the launch (grid, warps, block sizes, trip count,
FLAG); drop arrays and scalars nothing uses. Repeats until nothing
changes.
"""

import copy
import os
import time
import re

import tilegen


def _norm(msg):
    """A failure message without names, paths and numbers."""
    msg = re.sub(r"\S*kernel(_triton)?\.(tile|py):\d+:\d+:", "", msg)
    msg = re.sub(r"\b[txy]\d+(_[px])?\b", "v", msg)
    msg = re.sub(r"\d+", "N", msg)
    return msg.strip()


def same_failure(a, b):
    sa, ma = a
    sb, mb = b
    if sa != sb:
        return False
    if sa in ("error", "crash"):
        return _norm(ma) == _norm(mb)
    return True


def prune(p):
    """Drop arrays and scalars that no live node or store uses."""
    live = p.live()
    used_arrays = {st["arr"] for st in p.stores}
    used_scalars = set()
    for i in live:
        n = p.nodes[i]
        if "arr" in n.attrs:
            used_arrays.add(n.attrs["arr"])
        if n.kind == "scalar":
            used_scalars.add(n.attrs["name"])
        if n.kind == "ifdyn" and n.attrs.get("pk") == "s0":
            used_scalars.add("s0")
    for name in list(p.arrays):
        if name not in used_arrays:
            del p.arrays[name]
    for name in list(p.scalars):
        if name not in used_scalars:
            del p.scalars[name]
    for i in range(len(p.nodes)):
        if i not in live:
            p.nodes[i] = None
    return p


def replace_uses(p, i, j):
    q = copy.deepcopy(p)
    for n in q.nodes:
        if n is not None:
            n.args = [j if a == i else a for a in n.args]
    for st in q.stores:
        st["args"] = [j if a == i else a for a in st["args"]]
    return prune(q)


def reduce_program(p, backend, failure, opts, log=None, max_tests=400, deadline=None):
    import difftest
    work = os.path.join(opts["work"], "reduce-%s" % backend)
    tests = [0]

    def interesting(q):
        if tests[0] >= max_tests or (deadline and time.time() > deadline):
            return False
        try:
            q.expected()
        except (tilegen.Unsafe, ValueError, IndexError, KeyError):
            return False
        tests[0] += 1
        r = difftest.run_backend(q, backend, opts, work)
        return same_failure(failure, r)

    cur = prune(copy.deepcopy(p))
    if not interesting(cur):
        cur = copy.deepcopy(p)
    changed = True
    rounds = 0
    while changed and rounds < 4 and tests[0] < max_tests and \
            not (deadline and time.time() > deadline):
        changed = False
        rounds += 1
        # 1) stores
        k = 0
        while len(cur.stores) > 1 and k < len(cur.stores):
            q = copy.deepcopy(cur)
            del q.stores[k]
            q = prune(q)
            if interesting(q):
                cur, changed = q, True
            else:
                k += 1
        # 2) store an operand of the stored value instead (any dtype: the
        # output array takes it)
        for k in range(len(cur.stores)):
            st = cur.stores[k]
            if st["kind"] == "atomic":
                continue
            for j in cur.nodes[st["args"][0]].args:
                nj = cur.nodes[j]
                if nj is None or len(nj.shape) != 2 or \
                        (st["kind"] == "bstore" and (nj.shape != ("BM", "BN") or nj.dtype == "i1")):
                    continue
                q = copy.deepcopy(cur)
                q.stores[k]["args"] = [j]
                size = q.arrays[st["arr"]][1].size
                q.arrays[st["arr"]] = (nj.dtype, tilegen.poison(nj.dtype, size), "out")
                q = prune(q)
                if interesting(q):
                    cur, changed = q, True
                    break
        # 3) nodes, last first
        for i in sorted(cur.live(), reverse=True):
            if cur.nodes[i] is None or i not in cur.live():
                continue
            n = cur.nodes[i]
            cands = [a for a in n.args
                     if cur.nodes[a].dtype == n.dtype and cur.nodes[a].shape == n.shape]
            cands += [j for j in sorted(cur.live()) if j < i and j not in cands and
                      cur.nodes[j].kind in ("load2d", "bload", "loadvec") and
                      cur.nodes[j].dtype == n.dtype and cur.nodes[j].shape == n.shape]
            for j in cands:
                q = replace_uses(cur, i, j)
                if interesting(q):
                    cur, changed = q, True
                    break
            else:
                # a loop without its body operand, or with a plain sum
                if n.kind == "loop" and n.args:
                    q = copy.deepcopy(cur)
                    q.nodes[i].args = []
                    q = prune(q)
                    if interesting(q):
                        cur, changed = q, True
        # 4) the launch
        for attr, vals in (("grid", [(1, 1), (cur.grid[0], 1), (1, cur.grid[1])]),
                           ("num_warps", [4, 1]), ("trip", [0, 1, 2]), ("flag", [0])):
            for v in vals:
                if getattr(cur, attr) == v:
                    break
                if attr == "trip" and v >= cur.trip:
                    continue
                q = copy.deepcopy(cur)
                setattr(q, attr, v)
                if interesting(q):
                    cur, changed = q, True
                    break
        for d in ("BM", "BN", "BK"):
            while cur.dims[d] > 1:
                q = copy.deepcopy(cur)
                q.dims[d] //= 2
                uses_dot = any(n is not None and n.kind == "dot" for n in q.nodes)
                if uses_dot and q.dims[d] < 16:
                    break
                if not uses_dot and d == "BK":
                    break
                if interesting(q):
                    cur, changed = q, True
                else:
                    break
    st = difftest.run_backend(cur, backend, opts, work)
    if log:
        print("reduced %d -> %d ops in %d runs on %s: %s" % (
            len(p.live()), len(cur.live()), tests[0], backend, st[1]), file=log)
    return cur, st[1]
