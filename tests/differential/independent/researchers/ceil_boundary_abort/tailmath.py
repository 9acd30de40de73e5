"""Block arithmetic helpers."""


def n_blocks(tokens, block_size):
    # how many blocks are needed to hold `tokens` tokens
    return -(-tokens // block_size)
