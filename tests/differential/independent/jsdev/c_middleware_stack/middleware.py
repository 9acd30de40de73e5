"""Koa/Express-style middleware: app.use(fn) where fn(ctx, next) calls next() to continue."""


class Stack:
    def __init__(self):
        self._fns = []

    def use(self, fn):
        self._fns.append(fn)
        return self

    def handle(self, ctx):
        def dispatch(i):
            if i >= len(self._fns):
                return ctx
            return self._fns[i](ctx, lambda: dispatch(i + 1))

        return dispatch(0)
