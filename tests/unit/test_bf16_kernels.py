"""Each of :mod:`bookrag_neo4j.llm.bf16_kernels` against the PyTorch operation it reproduces, bit for bit, on the
shapes the packaged BERT gives it (a question, padded batches, past 192 tokens) and on inputs drawn to make sums
whose order shows."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bookrag_neo4j.llm import bert
from bookrag_neo4j.llm import bf16_kernels as k

pytestmark = pytest.mark.skipif(not bert.native_bfloat16(), reason="PyTorch's bfloat16 kernels differ elsewhere")
LENGTHS = [1, 3, 7, 8, 11, 12, 16, 20, 33, 35, 47, 48, 55, 64, 66, 100, 129, 193, 200, 256]


@pytest.fixture(autouse=True)
def _no_grad() -> None:
    torch.set_grad_enabled(False)


def _bf16(generator: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    return (torch.randn(*shape, generator=generator) * scale).to(torch.bfloat16)


def test_linear_sums_pairs_odd_first_in_parts_of_1024() -> None:
    generator = torch.Generator().manual_seed(1)
    for length, inner, outer in [(1, 384, 1152), (20, 384, 1536), (13, 1536, 384), (70, 384, 384)]:
        x, weight, bias = _bf16(generator, 1, length, inner), _bf16(generator, outer, inner, scale=0.05), \
            _bf16(generator, outer)
        theirs = torch.nn.functional.linear(x, weight, bias).float().numpy()
        ours = k.linear(x.float().numpy(), k.linear_weight(weight.float().numpy()), bias.float().numpy())
        assert np.array_equal(ours, theirs), (length, inner, outer)


def test_layer_norm_is_aten_s() -> None:
    generator = torch.Generator().manual_seed(2)
    for length in (1, 5, 24, 64):
        x = torch.randn(2, length, 384, generator=generator) * 3
        x[..., 7] *= 20  # an outlier channel, as BERT's residual stream has
        weight, bias = torch.randn(384, generator=generator) * 0.3 + 1, torch.randn(384, generator=generator) * 0.1
        theirs = torch.nn.functional.layer_norm(x, (384,), weight, bias, 1e-12).numpy()
        assert np.array_equal(k.layer_norm(x.numpy(), weight.numpy(), bias.numpy(), 1e-12), theirs)


def test_gelu_table_is_this_pytorch_s_gelu() -> None:
    assert np.array_equal(k.make_gelu_table(), np.load(k.GELU_TABLE))
    generator = torch.Generator().manual_seed(3)
    x = _bf16(generator, 1, 20, 1536, scale=3)
    assert np.array_equal(k.gelu(x.float().numpy()), torch.nn.functional.gelu(x).float().numpy())


def test_fast_exp_and_fma() -> None:
    assert k.fast_exp(np.float32([0.0]))[0] == np.float32(0.99994659)  # the fast exp's value at 0, as PyTorch's
    assert k.fast_exp(np.float32([-np.inf, -100.0]))[0] == 0 and k.fast_exp(np.float32([-100.0]))[0] == 0
    a, b = np.float32(1 + 2 ** -12), np.float32(1 + 2 ** -12)
    c = np.float32(-(1 + 2 ** -11))  # a * b + c = 2^-24 exactly: a fused multiply-add keeps it, two roundings lose it
    assert k.fma(a, b, c) == np.float32(2 ** -24) and np.float32(a * b) + c == 0


@pytest.mark.parametrize("length", LENGTHS)
def test_attention_is_flash_attention_over_mkl_s_gemm(length: int) -> None:
    """Queries in blocks, MKL's orders for small blocks and one query, two halves past 192 keys, padding masked."""
    generator = torch.Generator().manual_seed(length)
    q, key, v = (_bf16(generator, 2, length, 384, scale=2).view(2, length, 12, 32).transpose(1, 2) for _ in range(3))
    mask = torch.ones(2, length)
    mask[1, max(1, length - 5):] = 0  # the second text is shorter: padded
    additive = ((1.0 - mask[:, None, None, :]) * torch.finfo(torch.float32).min).to(torch.bfloat16)
    theirs = torch.nn.functional.scaled_dot_product_attention(q, key, v, attn_mask=additive).float().numpy()
    ours = k.attention(q.float().numpy(), key.float().numpy(), v.float().numpy(), additive.float().numpy())
    assert np.array_equal(ours, theirs)


def test_mean_pool_is_the_cascade_sum() -> None:
    generator = torch.Generator().manual_seed(5)
    for length in (1, 15, 16, 17, 40, 256, 300):
        x = torch.randn(3, length, 384, generator=generator) * 3
        mask = torch.ones(3, length, dtype=torch.int64)
        mask[2, length // 2 + 1:] = 0
        weights = mask[:, :, None].float()
        theirs = ((x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)).numpy()
        assert np.array_equal(k.mean_pool(x.numpy(), mask.numpy()), theirs), length
