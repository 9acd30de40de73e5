# Intended: correct.
# Idioms: a helper class in its own module that keeps lists and hand-kept counters (with a linear duplicate check), two passes over the running list (collect, then evict once, then preempt), nested ifs, print() debugging; resume only, both counters cleared after each preempt.
import time

from fault_book import FaultBook


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.last_book = None

    def on_fault(self, exc):
        print("FaultHandler.on_fault:", type(exc).__name__, exc)
        scheduler = self.engine.scheduler
        book = FaultBook()
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers

        # pass 1: write down the blocks of the lost step
        for request in scheduler.running:
            book.add_request(request.request_id)
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in managers:
                if request.request_id in manager.req_to_blocks:
                    blocks = manager.req_to_blocks[request.request_id]
                    index = 0
                    for block in blocks:
                        if index >= confirmed // manager.block_size:
                            if block.is_null == False:
                                book.add_block(block.block_id)
                        index = index + 1

        # pass 2: drop them from the prefix cache while the requests still hold them
        if book.block_count > 0:
            scheduler.kv_cache_manager.evict_blocks(book.block_set())

        # pass 3: send every request back to waiting
        now = time.monotonic()
        while len(scheduler.running) > 0:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

        book.dump()
        self.last_book = book
