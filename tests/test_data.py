"""autograd_lab.data: the digits data set, Dataset/TensorDataset, DataLoader and collation."""

from __future__ import annotations

import hashlib
import pathlib
import re

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    load_digits,
    random_split,
)
from autograd_lab.data.digits import split_indices

# sha256 of the test indices (int64, little-endian): a change of the split would change every result
TEST_SPLIT_SHA256 = "21d4e10cf30b923d938331dbe4298115326f76c10da6260a9e741e0bec8feadf"


@pytest.fixture(scope="module")
def torch():
    module = pytest.importorskip("torch")
    module.set_num_threads(1)
    return module


# ---------------------------------------------------------------------------- digits
def test_digits_shapes_dtypes_and_range():
    x, y = load_digits()
    assert x.shape == (1797, 64) and y.shape == (1797,)
    assert x.dtype is al.float32 and y.dtype is al.int64
    assert float(x.min()) == 0.0 and float(x.max()) == 1.0
    assert sorted(set(y.tolist())) == list(range(10))
    raw, _ = load_digits(normalize=False)
    assert float(raw.max()) == 16.0 and np.all(raw.numpy() == np.round(raw.numpy()))
    np.testing.assert_allclose(raw.numpy() / 16, x.numpy())


def test_digits_split_is_fixed_disjoint_and_stratified():
    xtr, ytr = load_digits("train")
    xte, yte = load_digits("test")
    assert len(ytr) == 1437 and len(yte) == 360
    train, test = split_indices("train"), split_indices("test")
    assert set(train.tolist()).isdisjoint(test.tolist())
    assert sorted(train.tolist() + test.tolist()) == list(range(1797))
    assert hashlib.sha256(test.astype("<i8").tobytes()).hexdigest() == TEST_SPLIT_SHA256
    x, y = load_digits()
    assert al.equal(xte, x[al.tensor(test)]) and al.equal(ytr, y[al.tensor(train)])
    counts_all = np.bincount(y.numpy(), minlength=10)
    counts_test = np.bincount(yte.numpy(), minlength=10)
    share = counts_all * 360 / 1797
    assert np.all(np.abs(counts_test - share) < 1), "every digit keeps its share of the test set"
    again = load_digits("test")
    assert al.equal(again[0], xte) and al.equal(again[1], yte)


def test_digits_returns_fresh_tensors():
    x, y = load_digits("test")
    first_label = y[0].item()
    x[0, 0] = 99.0
    y[0] = first_label + 1
    x2, y2 = load_digits("test")
    assert float(x2[0, 0]) != 99.0 and y2[0].item() == first_label, "changing a result changes no later one"


def test_digits_bad_split():
    with pytest.raises(ValueError, match="split must be 'train', 'test' or None, got 'valid'"):
        load_digits("valid")


def test_digits_are_scikit_learns():
    datasets = pytest.importorskip("sklearn.datasets")
    bunch = datasets.load_digits()
    x, y = load_digits(normalize=False)
    np.testing.assert_array_equal(x.numpy(), bunch.data)
    np.testing.assert_array_equal(y.numpy(), bunch.target)


def test_digits_data_and_licence_are_package_data():
    folder = pathlib.Path(al.__file__).parent / "data"
    assert (folder / "digits.csv.gz").is_file()
    licence = (folder / "DIGITS_LICENSE.txt").read_text()
    assert "scikit-learn" in licence and "BSD 3-Clause" in licence and "UCI" in licence
    pyproject = (pathlib.Path(al.__file__).parents[1] / "pyproject.toml").read_text()
    line = next(ln for ln in pyproject.splitlines() if ln.startswith("autograd_lab = ["))
    assert '"data/*.csv.gz"' in line and '"data/*.txt"' in line


# ---------------------------------------------------------------------------- datasets
def test_tensor_dataset():
    x, y = al.arange(12).reshape(6, 2), al.arange(6)
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    xi, yi = ds[4]
    assert xi.tolist() == [8, 9] and yi.item() == 4
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        TensorDataset(al.zeros(3, 2), al.zeros(4))


def test_dataset_base_and_subset():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]
    sub = Subset(list(range(10)), [3, 1, 4])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [3, 1, 4]
    both = Subset(list(range(3)), [0, 1]) + Subset(list(range(3)), [2])
    assert len(both) == 3 and both[2] == 2


def test_random_split():
    parts = random_split(range(10), [7, 3], generator=al.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [7, 3]
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))
    again = random_split(range(10), [0.7, 0.3], generator=al.Generator().manual_seed(0))
    assert list(again[0]) == list(parts[0])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length"):
        random_split(range(10), [3, 3])


# ---------------------------------------------------------------------------- DataLoader
def test_batches_in_order_with_last_short_batch():
    ds = TensorDataset(al.arange(10).float().reshape(10, 1), al.arange(10))
    loader = DataLoader(ds, batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert isinstance(batches[0], list) and batches[0][0].shape == (4, 1)
    dropped = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dropped) == 2 and [b[1].tolist() for b in dropped] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_shuffle_with_generator_is_reproducible_and_a_permutation():
    ds = TensorDataset(al.arange(50))
    order = [b[0].tolist() for b in DataLoader(ds, batch_size=8, shuffle=True,
                                               generator=al.Generator().manual_seed(1))]
    again = [b[0].tolist() for b in DataLoader(ds, batch_size=8, shuffle=True,
                                               generator=al.Generator().manual_seed(1))]
    assert order == again
    flat = [i for b in order for i in b]
    assert sorted(flat) == list(range(50)) and flat != list(range(50))
    loader = DataLoader(ds, batch_size=50, shuffle=True, generator=al.Generator().manual_seed(1))
    first, second = next(iter(loader))[0].tolist(), next(iter(loader))[0].tolist()
    assert first != second, "every epoch draws a new order"


def test_shuffle_without_generator_follows_manual_seed():
    ds = list(range(20))
    al.manual_seed(5)
    a = [b.tolist() for b in DataLoader(ds, batch_size=5, shuffle=True)]
    al.manual_seed(5)
    b = [b.tolist() for b in DataLoader(ds, batch_size=5, shuffle=True)]
    assert a == b


def test_fast_path_equals_sample_by_sample_collation():
    class Plain(Dataset):
        def __init__(self, *tensors):
            self.tensors = tensors

        def __getitem__(self, i):
            return tuple(t[i] for t in self.tensors)

        def __len__(self):
            return len(self.tensors[0])

    x, y = al.randn(23, 3), al.arange(23)
    for kwargs in ({"batch_size": 5}, {"batch_size": 4, "drop_last": True}):
        fast = list(DataLoader(TensorDataset(x, y), **kwargs))
        slow = list(DataLoader(Plain(x, y), **kwargs))
        assert len(fast) == len(slow)
        for (fx, fy), (sx, sy) in zip(fast, slow):
            assert al.equal(fx, sx) and al.equal(fy, sy)


def test_unbatched_and_custom_collate():
    ds = TensorDataset(al.arange(3))
    items = list(DataLoader(ds, batch_size=None))
    assert [i[0].item() for i in items] == [0, 1, 2]
    joined = list(DataLoader(list(range(5)), batch_size=2, collate_fn=lambda b: sum(b)))
    assert joined == [1, 5, 4]
    batches = list(DataLoader(ds, batch_sampler=[[2, 0], [1]]))
    assert [b[0].tolist() for b in batches] == [[2, 0], [1]]


def test_default_collate():
    out = default_collate([(1, 2.0, "a", al.tensor([1.0, 2.0])), (3, 4.0, "b", al.tensor([3.0, 4.0]))])
    assert isinstance(out, list)
    assert out[0].tolist() == [1, 3] and out[0].dtype is al.int64
    assert out[1].tolist() == [2.0, 4.0] and out[1].dtype is al.float64, "Python floats collate to float64"
    assert out[2] == ("a", "b")
    assert out[3].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert default_collate([{"x": 1}, {"x": 2}])["x"].tolist() == [1, 2]
    assert default_collate([np.array([1.0, 2.0]), np.array([3.0, 4.0])]).dtype is al.float64
    assert default_collate([np.float32(1.0), np.float32(2.0)]).dtype is al.float32
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, "):
        default_collate([object(), object()])
    with pytest.raises(RuntimeError, match=re.escape("stack expects each tensor to be equal size")):
        default_collate([al.zeros(2), al.zeros(3)])


def test_default_collate_matches_pytorch(torch):
    from torch.utils.data import default_collate as torch_collate

    samples = [
        [(1, 2.5), (3, 4.5)],
        [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
        [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
        [True, False],
    ]

    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return (v.tolist(), str(v.dtype).replace("torch.", ""))

    for batch in samples:
        assert plain(default_collate(batch)) == plain(torch_collate(batch))


def test_loader_errors_match_pytorch(torch):
    def msgs(mod):
        dl = mod.utils.data.DataLoader
        ds = list(range(5))
        out = []
        for call in (lambda: dl(ds, batch_size=0), lambda: dl(ds, batch_size=-1),
                     lambda: dl(ds, batch_size=1.5), lambda: dl(ds, batch_size=None, drop_last=True),
                     lambda: dl(ds, shuffle=True, sampler=[0, 1]),
                     lambda: dl(ds, batch_size=2, batch_sampler=[[0, 1]]), lambda: dl(ds, num_workers=-1)):
            with pytest.raises(ValueError) as info:
                call()
            out.append(str(info.value))
        return out

    assert msgs(al) == msgs(torch)


def test_samplers():
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    assert sorted(RandomSampler(range(6), generator=al.Generator().manual_seed(0))) == list(range(6))
    assert len(list(RandomSampler(range(6), replacement=True, num_samples=20))) == 20
    assert list(BatchSampler(range(5), 2, False)) == [[0, 1], [2, 3], [4]]
    assert len(BatchSampler(range(5), 2, True)) == 2


def test_pytorch_path_and_tqdm():
    assert al.utils.data.DataLoader is DataLoader and al.utils.data.TensorDataset is TensorDataset
    tqdm = pytest.importorskip("tqdm").tqdm
    loader = DataLoader(TensorDataset(al.arange(10)), batch_size=3)
    bar = tqdm(loader, disable=True)
    assert bar.total == 4 and len(list(bar)) == 4
