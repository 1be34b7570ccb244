"""Typical wrong answers to 07_parallelism, for the project's tests (never released: see
nbgrader_config.py). Each entry replaces one solution cell (by its nbgrader grade_id); every
other solution cell keeps the correct answer. Autograding the result must give a score strictly
between zero and full marks (tests/test_pipeline.py)."""

DESCRIPTION = (
    "data_parallel_grads averages the shard gradients with equal weights, which is exact only for "
    "equal shards (10 samples over 3 workers is not); ring_all_reduce passes whole buffers around "
    "the ring: every worker ends with the right sum, but after p (p - 1) messages of n numbers, not "
    "2 p (p - 1) chunks of n / p."
)

WRONG_ANSWERS = {
    "data_parallel_grads": '''def data_parallel_grads(model, x, y, world_size):
    total = [np.zeros(p.shape) for p in model.parameters()]
    for rank in range(world_size):
        xs, ys = shard(x, rank, world_size), shard(y, rank, world_size)
        if len(xs) == 0:
            continue
        model.zero_grad()
        F.cross_entropy(model(xs), ys).backward()
        for t, p in zip(total, model.parameters()):
            t += p.grad.numpy() / world_size
    return total
''',
    "ring_all_reduce": '''def ring_all_reduce(buffers):
    p = len(buffers)
    results = [np.array(b, copy=True) for b in buffers]
    passing = [np.array(b, copy=True) for b in buffers]
    messages = []
    for step in range(p - 1):
        passing = [passing[(r - 1) % p] for r in range(p)]  # forward what came from the left
        for r in range(p):
            results[r] = results[r] + passing[r]
            messages.append((step, (r - 1) % p, r, None, len(passing[r])))
    return results, messages
''',
}
