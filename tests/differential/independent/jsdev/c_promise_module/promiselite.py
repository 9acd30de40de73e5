"""A synchronous, Promise-shaped wrapper: resolve/reject, then/catch/finally, all()."""


class Promise:
    PENDING, FULFILLED, REJECTED = "pending", "fulfilled", "rejected"

    def __init__(self, executor=None):
        self.state, self.value = Promise.PENDING, None
        if executor is not None:
            try:
                executor(self._fulfil, self._reject)
            except Exception as err:  # noqa: BLE001 - a throwing executor rejects, like JS
                self._reject(err)

    def _fulfil(self, value):
        if self.state == Promise.PENDING:
            self.state, self.value = Promise.FULFILLED, value

    def _reject(self, err):
        if self.state == Promise.PENDING:
            self.state, self.value = Promise.REJECTED, err

    @classmethod
    def resolve(cls, value=None):
        return cls(lambda res, _rej: res(value))

    @classmethod
    def reject(cls, err):
        return cls(lambda _res, rej: rej(err))

    @classmethod
    def all(cls, fns, arg):
        """Run every fn(arg); fulfilled with the list of results, rejected on the first throw."""
        return cls(lambda res, _rej: res([fn(arg) for fn in fns]))

    def then(self, on_fulfilled=None, on_rejected=None):
        if self.state == Promise.FULFILLED and on_fulfilled:
            return Promise(lambda res, _rej: res(on_fulfilled(self.value)))
        if self.state == Promise.REJECTED and on_rejected:
            return Promise(lambda res, _rej: res(on_rejected(self.value)))
        return self

    def catch(self, on_rejected):
        return self.then(None, on_rejected)

    def finally_(self, fn):
        fn()
        return self

    def await_(self):
        """The value, or raise the rejection (what `await` would do)."""
        if self.state == Promise.REJECTED:
            raise self.value
        return self.value
