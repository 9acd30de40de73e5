"""Hook points for the fault path, pluggy-like: hook implementations are
registered per hook name and called with keyword arguments; ``call`` collects
non-None results."""


class HookRelay:
    def __init__(self):
        self._impls = {}

    def hookimpl(self, name):
        def deco(fn):
            self._impls.setdefault(name, []).append(fn)
            return fn

        return deco

    def call(self, name, **kwargs):
        results = []
        for impl in self._impls.get(name, []):
            res = impl(**kwargs)
            if res is not None:
                results.append(res)
        return results
