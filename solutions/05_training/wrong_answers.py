"""Typical wrong answers to 05_training, for the project's tests (never released: see
nbgrader_config.py). Each entry replaces one solution cell (by its nbgrader grade_id); every
other solution cell keeps the correct answer. Autograding the result must give a score strictly
between zero and full marks (tests/test_pipeline.py)."""

DESCRIPTION = (
    "MomentumSGD makes a new buffer from the gradient at every step instead of keeping it in "
    "self.state, so it is plain SGD; train_epoch never calls zero_grad, so each step uses the sum "
    "of all the gradients of the epoch so far."
)

WRONG_ANSWERS = {
    "MomentumSGD": '''class MomentumSGD(optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                buf = p.grad.clone()
                p.sub_(group["lr"] * buf)
''',
    "train_epoch": '''def train_epoch(model, loader, loss_fn, optimizer):
    model.train()
    total, n = 0.0, 0
    for x, y in loader:
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(x)
        n += len(x)
    return total / n
''',
}
