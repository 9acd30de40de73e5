"""Apply a plan: one evict_blocks call per KV-cache group."""


def apply_plan(kv_manager, plan, dry_run=False):
    done = {}
    for gid in sorted(plan):
        ids = set(plan[gid])
        if not dry_run:
            kv_manager.evict_blocks(ids)
        done[gid] = len(ids)
    return done
