"""A Redux-shaped store: a pure reducer, dispatch(action), subscribe(listener), thunks."""


class Store:
    def __init__(self, reducer, initial):
        self._reducer, self._state, self._listeners = reducer, initial, []

    def getState(self):
        return self._state

    def subscribe(self, listener):
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def dispatch(self, action):
        if callable(action):  # redux-thunk
            return action(self.dispatch, self.getState)
        self._state = self._reducer(self._state, action)
        for listener in list(self._listeners):
            listener(action, self._state)
        return action
