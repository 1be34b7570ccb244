"""Typical wrong answers to 02_backward, for the project's tests (never released: see
nbgrader_config.py). Each entry replaces one solution cell (by its nbgrader grade_id); every
other solution cell keeps the correct answer. Autograding the result must give a score strictly
between zero and full marks (tests/test_pipeline.py)."""

DESCRIPTION = (
    "neuron_grads forgets the sigmoid's derivative in the chain (dL/ds taken as dL/dz); "
    "Softplus computes log(1 + exp(x)) as written, which overflows for large x, with a right "
    "backward."
)

WRONG_ANSWERS = {
    "neuron_grads": '''def neuron_grads(w, b, x, t):
    z = 1.0 / (1.0 + math.exp(-(w * x + b)))
    dL_dz = 2.0 * (z - t)
    return dL_dz * x, dL_dz
''',
    "softplus": '''class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(1 + torch.exp(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.sigmoid(x)
''',
}
