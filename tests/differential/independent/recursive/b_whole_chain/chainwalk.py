"""Recursive generators over the blocks each request holds."""


def held_blocks(blocks, i=0):
    if i >= len(blocks):
        return
    if not blocks[i].is_null:
        yield blocks[i].block_id
    yield from held_blocks(blocks, i + 1)


def request_blocks(request, managers, g=0):
    if g >= len(managers):
        return
    yield from held_blocks(managers[g].req_to_blocks.get(request.request_id, []))
    yield from request_blocks(request, managers, g + 1)


def running_blocks(requests, managers):
    if not requests:
        return
    yield from request_blocks(requests[0], managers)
    yield from running_blocks(requests[1:], managers)
