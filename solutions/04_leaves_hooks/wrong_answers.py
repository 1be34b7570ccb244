"""Typical wrong answers to 04_leaves_hooks, for the project's tests (never released: see
nbgrader_config.py). Each entry replaces one solution cell (by its nbgrader grade_id); every
other solution cell keeps the correct answer. Autograding the result must give a score strictly
between zero and full marks (tests/test_pipeline.py)."""

DESCRIPTION = (
    "grads_by_hooks registers a lambda in a loop, which looks the loop variable up late: every "
    "gradient lands under the last name; make_clip_hook computes the clipped gradient but does not "
    "return it, so nothing is clipped."
)

WRONG_ANSWERS = {
    "grads_by_hooks": '''def grads_by_hooks(named, loss):
    grads, handles = {}, []
    for name, t in named.items():
        handles.append(t.register_hook(lambda grad: grads.__setitem__(name, grad.clone())))
    loss.backward()
    for handle in handles:
        handle.remove()
    return grads
''',
    "clip_hooks": '''def make_clip_hook(c):
    def hook(grad):
        torch.clamp(grad, -c, c)
    return hook


def make_norm_clip_hook(max_norm):
    def hook(grad):
        norm = grad.norm().item()
        return grad * (max_norm / norm) if norm > max_norm else grad
    return hook
''',
}
