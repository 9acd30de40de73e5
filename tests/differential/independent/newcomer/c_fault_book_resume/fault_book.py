# A little notebook class: what the fault handler found, so it can be printed later.


class FaultBook:
    def __init__(self):
        self.request_ids = []
        self.block_ids = []
        self.block_count = 0
        self.request_count = 0

    def add_request(self, request_id):
        self.request_ids.append(request_id)
        self.request_count = self.request_count + 1

    def add_block(self, block_id):
        already = False
        for i in range(len(self.block_ids)):
            if self.block_ids[i] == block_id:
                already = True
        if already == False:
            self.block_ids.append(block_id)
            self.block_count = self.block_count + 1

    def block_set(self):
        out = set()
        for b in self.block_ids:
            out.add(b)
        return out

    def dump(self):
        print("FaultBook:", self.request_count, "requests", self.request_ids)
        print("FaultBook:", self.block_count, "blocks", self.block_ids)
