"""Typical wrong answers to 01_tensors, for the project's tests (never released: see
nbgrader_config.py). Each entry replaces one solution cell (by its nbgrader grade_id); every
other solution cell keeps the correct answer. Autograding the result must give a score strictly
between zero and full marks (tests/test_pipeline.py)."""

DESCRIPTION = (
    "sum_to_shape sums away the extra leading axes but forgets the stretched size-1 axes; "
    "channel_stats uses the sample std (n - 1), PyTorch's default for .std(), not BatchNorm's."
)

WRONG_ANSWERS = {
    "sum_to_shape": '''def sum_to_shape(grad, shape):
    extra = grad.ndim - len(shape)
    return grad.sum(axis=tuple(range(extra))) if extra > 0 else grad
''',
    "channel_stats": '''def channel_stats(images):
    mean = images.mean(dim=(0, 2, 3), keepdim=True)
    return mean, images.std(dim=(0, 2, 3), keepdim=True)
''',
}
