"""Typical wrong answers to 06_grad_modes, for the project's tests (never released: see
nbgrader_config.py). Each entry replaces one solution cell (by its nbgrader grade_id); every
other solution cell keeps the correct answer. Autograding the result must give a score strictly
between zero and full marks (tests/test_pipeline.py)."""

DESCRIPTION = (
    "evaluate calls model.eval() but not no_grad, so every forward pass builds a graph; "
    "jacobian_by_rows uses backward() without clearing x.grad, so each row is the sum of the rows "
    "before it."
)

WRONG_ANSWERS = {
    "evaluate": '''def evaluate(model, loader):
    model.eval()
    total, correct, n = 0.0, 0, 0
    for x, y in loader:
        scores = model(x)
        total += nn.functional.cross_entropy(scores, y).item() * len(y)
        correct += (scores.argmax(dim=1) == y).sum().item()
        n += len(y)
    return total / n, correct / n
''',
    "jacobian_by_rows": '''def jacobian_by_rows(f, x):
    x = x.detach().requires_grad_()
    y = f(x)
    rows = []
    for yi in y.reshape(-1):
        yi.backward(retain_graph=True)
        rows.append(x.grad.clone())
    return torch.stack(rows).reshape(tuple(y.shape) + tuple(x.shape))
''',
}
