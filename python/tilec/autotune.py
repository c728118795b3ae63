"""`tilec.autotune`, `tilec.heuristics` and `tilec.Config`: Triton's
decorators over `@tilec.jit` kernels.

    @tilec.autotune(configs=[tilec.Config({"BLOCK": 256}, num_warps=4),
                             tilec.Config({"BLOCK": 1024}, num_warps=8)],
                    key=["n"])
    @tilec.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr): ...

    kernel[lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),)](x, n)

The first launch for a key (the values of the `key` arguments; a tensor's
dtype) benchmarks every surviving config with `tilec.testing.do_bench`
(`prune_configs_by={"early_config_prune": f, "perf_model": f, "top_k": k}`
first; `reset_to_zero` tensors are zeroed and `restore_value` tensors
restored around each run), launches the winner and records it, in memory
and on disk: `$TILEC_CACHE_DIR/autotune/<name>-<hash>.json` (default
~/.cache/tilec), the hash covering the kernel's source and the configs, so
another process reuses the winner and an edited kernel is tuned again.
`TILEC_AUTOTUNE_CACHE=0` turns the record off. `autotuner.best_config` is
the last winner; `autotuner.benchmarks` counts benchmarked configs.
"""

import builtins
import hashlib
import json
import os
import threading

from .testing import do_bench as _do_bench


class Config:
    """One tuning point: constexpr values (`kwargs`) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, pre_hook=None, **_ignored):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.pre_hook = pre_hook

    def _launch_options(self):
        # num_ctas only when it clusters: records and launches of unclustered
        # configs stay as they were.
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        if self.num_ctas != 1:
            options["num_ctas"] = self.num_ctas
        return options

    def all_kwargs(self):
        return dict(self.kwargs, **self._launch_options())

    def _record(self):
        return dict(self._launch_options(), kwargs=self.kwargs)

    def __repr__(self):
        items = ", ".join(f"{k}: {v}" for k, v in self.kwargs.items())
        options = ", ".join(f"{k}={v}" for k, v in self._launch_options().items())
        return f"Config({{{items}}}, {options})"

    def __eq__(self, other):
        return isinstance(other, Config) and self._record() == other._record()

    def __hash__(self):
        return hash(json.dumps(self._record(), sort_keys=True))


def _base(fn):
    while not hasattr(fn, "arg_names") or isinstance(fn, (Autotuner, Heuristics)):
        fn = fn.fn
    return fn


def _source(fn):
    return _base(fn).source()


class _Launchable:
    """`obj[grid](...)` for the decorators."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    @property
    def arg_names(self):
        return self.fn.arg_names

    @property
    def name(self):
        return self.fn.name


def _named(fn, args, kwargs):
    named = dict(zip(fn.arg_names, args))
    named.update(kwargs)
    return named


class Autotuner(_Launchable):
    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None,
                 restore_value=None, warmup=25, rep=100, do_bench=None):
        self.fn = fn
        self.configs = list(configs) if configs else [Config({})]
        self.key = list(key)
        prune = prune_configs_by or {}
        self.early_prune = prune.get("early_config_prune")
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k", 1.0)
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.warmup, self.rep = warmup, rep
        self.bench_fn = do_bench
        self.cache = {}
        self.best_config = None
        self.benchmarks = 0
        self.timings = {}
        self._lock = threading.Lock()
        self._record_path = None
        self._record = None

    # -- the persistent record

    def _path(self):
        if self._record_path is None:
            h = hashlib.sha256()
            h.update(_source(self.fn).encode())
            h.update(_base(self.fn).name.encode())
            h.update(repr(self.configs).encode())
            root = os.environ.get("TILEC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                     "tilec")
            self._record_path = os.path.join(root, "autotune",
                                             f"{_base(self.fn).name}-{h.hexdigest()[:24]}.json")
        return self._record_path

    def _load(self):
        if self._record is None:
            self._record = {}
            if os.environ.get("TILEC_AUTOTUNE_CACHE", "1") != "0":
                try:
                    with open(self._path()) as f:
                        self._record = json.load(f)
                except (OSError, ValueError):
                    self._record = {}
        return self._record

    def _store(self, key, config):
        if os.environ.get("TILEC_AUTOTUNE_CACHE", "1") == "0":
            return
        record = self._load()
        record[key] = config._record()
        path = self._path()
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump(record, f, indent=1, sort_keys=True)
            os.replace(tmp, path)
        except OSError:
            pass  # the record is an optimization

    # -- tuning

    def _key(self, named):
        parts = []
        for k in self.key:
            v = named.get(k)
            parts.append(str(v.dtype) if hasattr(v, "dtype") and hasattr(v, "shape") else repr(v))
        return "|".join(parts)

    def prune(self, named):
        configs = self.configs
        if self.early_prune is not None:
            configs = list(self.early_prune(configs, named))
        if self.perf_model is not None:
            top = self.top_k if isinstance(self.top_k, int) else max(1, int(len(configs) * self.top_k))
            est = sorted(configs, key=lambda c: self.perf_model(**named, **c.all_kwargs()))
            configs = est[:top]
        return configs

    def _bench(self, config, args, kwargs, grid):
        named = _named(self.fn, args, kwargs)

        def call():
            for name in self.reset_to_zero:
                named[name].zero_() if hasattr(named[name], "zero_") else named[name].fill(0)
            if config.pre_hook is not None:
                config.pre_hook(dict(named, **config.kwargs))
            self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())

        saved = {n: named[n].clone() if hasattr(named[n], "clone") else named[n].copy()
                 for n in self.restore_value}
        try:
            bench = self.bench_fn or (lambda f: _do_bench(f, warmup=self.warmup, rep=self.rep))
            return bench(call)
        finally:
            for n, v in saved.items():
                named[n][...] = v

    def run(self, *args, grid, **kwargs):
        named = _named(self.fn, args, kwargs)
        for c in self.configs:
            clash = set(c.kwargs) & set(kwargs)
            if clash:
                raise ValueError(f"{self.name}: {sorted(clash)} are tuned by autotune; do not pass them")
        key = self._key(named)
        config = self.cache.get(key)
        if config is None:
            with self._lock:
                config = self.cache.get(key)
                if config is None:
                    saved = self._load().get(key)
                    if saved is not None:
                        config = Config(saved["kwargs"], num_warps=saved["num_warps"],
                                        num_stages=saved["num_stages"],
                                        num_ctas=saved.get("num_ctas", 1))
                    else:
                        candidates = self.prune(named)
                        if len(candidates) == 1:
                            config = candidates[0]
                        else:
                            timings = {}
                            for c in candidates:
                                try:
                                    timings[c] = self._bench(c, args, kwargs, grid)
                                except Exception as err:  # a config that does not compile
                                    timings[c] = float("inf")
                                    last = err
                                self.benchmarks += 1
                            if all(t == float("inf") for t in timings.values()):
                                raise last
                            config = builtins.min(timings, key=timings.get)
                            self.timings[key] = timings
                        self._store(key, config)
                    self.cache[key] = config
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook(dict(named, **config.kwargs))
        return self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())


class Heuristics(_Launchable):
    def __init__(self, fn, values):
        self.fn = fn
        self.values = dict(values)

    def run(self, *args, grid, **kwargs):
        named = _named(self.fn, args, kwargs)
        for name, rule in self.values.items():
            kwargs[name] = named[name] = rule(named)
        return self.fn.run(*args, grid=grid, **kwargs)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             warmup=25, rep=100, do_bench=None, **_ignored):
    """`@tilec.autotune(configs=[...], key=[...])` over a @tilec.jit kernel."""
    def wrap(fn):
        return Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value,
                         warmup, rep, do_bench)
    return wrap


def heuristics(values):
    """`@tilec.heuristics({"EVEN": lambda args: args["n"] % 1024 == 0})`."""
    def wrap(fn):
        return Heuristics(fn, values)
    return wrap
