# helper functions for the fault handler (finding the blocks of the lost step)

# how many times find_dirty_block_ids was called, for debugging
CALLS = 0


def confirmed_tokens(request):
    # computed tokens minus the tokens of the step whose output never came back
    value = request.num_computed_tokens - request.num_in_flight_tokens
    if value < 0:
        value = 0
    return value


def find_dirty_block_ids(scheduler, request):
    global CALLS
    CALLS = CALLS + 1
    result = []
    confirmed = confirmed_tokens(request)
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    group_number = 0
    for manager in managers:
        block_list = manager.req_to_blocks.get(request.request_id, [])
        start_index = confirmed // manager.block_size
        position = 0
        for block in block_list:
            if position >= start_index:
                if not block.is_null:
                    result.append(block.block_id)
            position = position + 1
        group_number = group_number + 1
    print("dirty_tail: request", request.request_id, "groups", group_number, "dirty", result)
    return result
