"""PyTorch's bfloat16 CPU kernels in NumPy, to the bit: the packaged BERT's question vectors without importing torch.

The index embeds in PyTorch (:mod:`.bert`) with bfloat16 products where the CPU has them natively. A question embedded
any other way lands about 1e-5 cosine away and reorders blocks whose scores tie within that. Each function here adds
and rounds in the order the kernel PyTorch 2.13 calls on x86 with AVX512-BF16 does (found by probing each kernel
with inputs whose sums depend on the order: ``docs/eval/plugin-60/bf16-exact.md``):

- a linear layer: oneDNN's brgemm, each pair of products odd element first, K in parts of 1,024 added after;
- LayerNorm: ATen's cascaded Welford over 8-float vectors, fused multiply-adds where the compiler made them;
- GELU: oneDNN's kernel, read from a table of its output for every bfloat16 value (``gelu_bf16.npy``, made by
  PyTorch itself: ``python -m bookrag_neo4j.llm.bf16_kernels``);
- attention: ATen's flash attention (queries in blocks, the fast exp, two running sums) over MKL's bfloat16 GEMM,
  whose order depends on the block's shape;
- mean pooling: ATen's cascade sum.

``tests/unit/test_embedder_numpy.py`` holds the vectors equal to PyTorch's on this kind of CPU; elsewhere (another
CPU or PyTorch) they stay within about 1e-5 cosine, as before.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np

F32, F64 = np.float32, np.float64
GELU_TABLE = Path(__file__).with_name("gelu_bf16.npy")
LINEAR_PART = 1024  # oneDNN's brgemm sums K in parts this long and adds the parts
VECTOR = 16  # floats in an AVX-512 register (flash attention)
NORM_VECTOR, NORM_CHUNK = 8, 16  # LayerNorm's moments: 8-float vectors, Welford over chunks of 16 of them


def to_bfloat16(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to the nearest bfloat16 (ties to even), kept as float32 (its low 16 bits zero)."""
    bits = np.ascontiguousarray(x, dtype=F32).view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    rounded &= np.uint32(0xFFFF0000)
    return rounded.view(F32)


def fma(a: np.ndarray | np.floating, b: np.ndarray | np.floating, c: np.ndarray | np.floating) -> np.ndarray:
    """``a * b + c`` rounded once to float32, as a fused multiply-add: the product is exact in float64; where the
    float64 sum sits on a float32 halfway point its rounding error decides the direction."""
    product, addend = np.multiply(a, b, dtype=F64), np.asarray(c, dtype=F64)
    total = product + addend
    halfway = (total.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)
    if halfway.any():
        back = total - product
        error = (product - (total - back)) + (addend - back)  # TwoSum: the exact sum is total + error
        total = np.where(halfway & (error != 0), np.nextafter(total, np.copysign(np.inf, error)), total)
    return total.astype(F32)


def pair_order(k: int) -> np.ndarray:
    """The order in which :func:`linear` reads the K axis: each pair odd element first."""
    return np.arange(k).reshape(-1, 2)[:, ::-1].ravel()


def linear_weight(weight: np.ndarray) -> np.ndarray:
    """A linear layer's (N, K) float32 weight as :func:`linear` takes it: rounded to bfloat16, (K, N), its rows
    in :func:`pair_order`."""
    return np.ascontiguousarray(to_bfloat16(weight).T[pair_order(weight.shape[1])])


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """``x @ weight + bias`` rounded to bfloat16; ``x`` and ``bias`` hold bfloat16 values, ``weight`` comes from
    :func:`linear_weight`. The products are exact in float32; each pair is added odd element first, the pairs in
    order (AVX512-BF16's ``vdpbf16ps``), one float32 rounding an addition; parts of :data:`LINEAR_PART` are summed
    apart, then added."""
    shape, k = x.shape, x.shape[-1]
    rows = x.reshape(-1, k)[:, pair_order(k)]
    total: np.ndarray | None = None
    for part in range(0, k, LINEAR_PART):
        stop = min(part + LINEAR_PART, k)
        running: np.ndarray | None = None
        for start in range(part, stop, 16):  # a few at a time: NumPy reduces a middle axis in order
            products = rows[:, start:min(start + 16, stop), None] * weight[None, start:min(start + 16, stop)]
            if running is not None:
                products[:, 0] += running
            running = np.add.reduce(products, axis=1)
        total = running if total is None else total + running
    assert total is not None
    return to_bfloat16(total + bias).reshape(shape[:-1] + (weight.shape[1],))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """ATen's LayerNorm over the last axis, float32: mean and variance by Welford's update over vectors of
    :data:`NORM_VECTOR` floats, chunk by chunk, chunks merged on a cascade stack, then the vector's lanes;
    ``(x - mean) * rstd`` fused into ``* weight + bias``."""
    shape, n = x.shape, x.shape[-1]
    rows = np.ascontiguousarray(x, dtype=F32).reshape(-1, n)
    count = n // NORM_VECTOR
    chunks = -(-count // NORM_CHUNK)
    depth = 1 if chunks <= 2 else (chunks - 1).bit_length()
    zero = np.zeros((rows.shape[0], NORM_VECTOR), F32)

    def merge(n_add: int, m1_add: np.ndarray, m2_add: np.ndarray, n0: int, m1: np.ndarray, m2: np.ndarray
              ) -> tuple[int, np.ndarray, np.ndarray]:
        total = n0 + n_add
        c = F32(0) if total == 0 else F32(n_add) / F32(total)
        delta = m1_add - m1
        step = c * delta
        return total, m1 + step, fma(delta * F32(n0), step, m2 + m2_add)

    def welford(values: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
        m1 = np.zeros(values.shape[:-2] + values.shape[-1:], F32)
        m2 = m1
        for j in range(steps):
            v = values[..., j, :]
            d = v - m1
            m1 = fma(F32(1) / F32(j + 1), d, m1)
            m2 = fma(d, v - m1, m2)
        return m1, m2

    full = count // NORM_CHUNK
    parts: list[tuple[int, np.ndarray, np.ndarray]] = []
    if full:
        m1, m2 = welford(rows[:, :full * NORM_CHUNK * NORM_VECTOR].reshape(-1, full, NORM_CHUNK, NORM_VECTOR),
                         NORM_CHUNK)
        parts = [(NORM_CHUNK, m1[:, i], m2[:, i]) for i in range(full)]
    if rest := count - full * NORM_CHUNK:
        m1, m2 = welford(rows[:, full * NORM_CHUNK * NORM_VECTOR:count * NORM_VECTOR].reshape(-1, rest, NORM_VECTOR),
                         rest)
        parts.append((rest, m1, m2))
    s0, s1, s2 = [0] * depth, [zero] * depth, [zero] * depth
    for i, (steps, m1, m2) in enumerate(parts):
        s0[0], s1[0], s2[0] = merge(steps, m1, m2, s0[0], s1[0], s2[0])
        mask, j = i + 1, 1
        while j < depth and mask & 1 == 0:
            s0[j], s1[j], s2[j] = merge(s0[j - 1], s1[j - 1], s2[j - 1], s0[j], s1[j], s2[j])
            s0[j - 1], s1[j - 1], s2[j - 1] = 0, zero, zero
            mask >>= 1
            j += 1
    for i in range(1, depth):
        s0[0], s1[0], s2[0] = merge(s0[i], s1[i], s2[i], s0[0], s1[0], s2[0])
    seen, mean, m2_total = 0, np.zeros(rows.shape[0], F32), np.zeros(rows.shape[0], F32)
    for i in range(count * NORM_VECTOR, n):  # the elements past the last vector, one by one
        d = rows[:, i] - mean
        seen += 1
        mean = mean + d / F32(seen)
        m2_total = m2_total + d * (rows[:, i] - mean)
    for lane in range(NORM_VECTOR):
        total = seen + s0[0]
        c = F32(0) if total == 0 else F32(s0[0]) / F32(total)
        delta = s1[0][:, lane] - mean
        mean = fma(c, delta, mean)
        m2_total = m2_total + fma(delta * delta * c, F32(seen), s2[0][:, lane])
        seen = total
    rstd = F32(1) / np.sqrt(m2_total / F32(n) + F32(eps))
    return fma((rows - mean[:, None]) * rstd[:, None], weight, bias).reshape(shape)


# ATen's fast exp (``exp_u20`` in flash attention): 2^(x log2 e) with a cubic for the fraction's power, the result
# written into a float's exponent and mantissa bits; about 1e-5 from exp
EXP_CUBIC = (F32(0.00010703434948458272), F32(0.30354260500649682), F32(-0.22433836478672356),
             F32(-0.079204240219773236))
LOG2_E = np.array([0x3FB8AA3B], np.uint32).view(F32)[0]
EXP_LOW, EXP_HIGH = np.array([0xC2AEAC50, 0x42B17218], np.uint32).view(F32)


def fast_exp(x: np.ndarray) -> np.ndarray:
    """ATen's vectorised fast exp of float32 values (0 below ln of the smallest normal float)."""
    with np.errstate(invalid="ignore", over="ignore"):
        power = (x * LOG2_E).astype(F32)
        fraction = (power - np.floor(power)).astype(F32)
        poly = fma(fraction, EXP_CUBIC[3], EXP_CUBIC[2])
        poly = fma(fraction, poly, EXP_CUBIC[1])
        poly = fma(fraction, poly, EXP_CUBIC[0])
        scaled = fma(F32(2 ** 23), (power - poly).astype(F32), F32(2 ** 23 * 127))
        bits = np.where(x < EXP_LOW, 0, np.where(x > EXP_HIGH, 0x7F800000, np.trunc(np.nan_to_num(scaled))))
    return bits.astype(np.int64).astype(np.uint32).view(F32)


def _in_order(products: np.ndarray) -> np.ndarray:
    """The last axis summed in order, one float32 rounding an addition."""
    total = np.zeros(products.shape[:-1], F32)
    for i in range(products.shape[-1]):
        total += products[..., i]
    return total


def _halving(lanes: np.ndarray) -> np.ndarray:
    """A vector's lanes summed as its halves are added: lane i + lane i + w/2, down to one."""
    while lanes.shape[-1] > 1:
        half = lanes.shape[-1] // 2
        lanes = lanes[..., :half] + lanes[..., half:]
    return lanes[..., 0]


def _scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``q @ kᵀ`` over a block of queries as MKL's single-threaded bfloat16 GEMM sums it: in order for 12 keys or
    more and 4 queries or more; else the keys in fours by four running sums ((0 + 2) + (1 + 3)), the keys past the
    last four by eight running sums added by halves."""
    products = q[..., :, None, :] * k[..., None, :, :]  # exact in float32
    queries, keys = q.shape[-2], k.shape[-2]
    if keys >= 12 and queries >= 4:
        return _in_order(products)
    fours = keys // 4 * 4
    out = np.empty(products.shape[:-1], F32)
    sums = [_in_order(products[..., :fours, j::4]) for j in range(4)]
    out[..., :fours] = (sums[0] + sums[2]) + (sums[1] + sums[3])
    if fours < keys:
        eights = products[..., fours:, :]
        out[..., fours:] = _halving(_in_order(eights.reshape(eights.shape[:-1] + (-1, 8)).swapaxes(-1, -2)))
    return out


def _weighted(p: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``p @ v`` (attention weights times values) as MKL's GEMM sums it: one query (a matrix-vector product) in
    groups of four added (0 + 2) + (1 + 3), the rest one by one; more than 192 keys and 4 queries or more in two
    halves added, an odd last key after; else in order."""
    products = p[..., :, None, :] * np.swapaxes(v, -1, -2)[..., None, :, :]  # (..., queries, dim, keys)
    queries, keys = p.shape[-2], p.shape[-1]
    if queries == 1:
        fours = keys // 4 * 4
        total = np.zeros(products.shape[:-1], F32)
        for a in range(0, fours, 4):
            total += (products[..., a] + products[..., a + 2]) + (products[..., a + 1] + products[..., a + 3])
        return total + _in_order(products[..., fours:]) if fours < keys else total
    if keys > 192 and queries >= 4:
        even = keys - keys % 2
        total = _in_order(products[..., :even // 2]) + _in_order(products[..., even // 2:even])
        return total + products[..., even] if keys % 2 else total
    return _in_order(products)


def _exp_sum(shifted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """exp of scores less their row's maximum, and its row sums, as flash attention takes them: whole vectors by
    :func:`fast_exp`, summed lane by lane into two running vectors (even and odd vectors), added, then across lanes
    by halves; the keys past the last whole vector by exp, added one by one."""
    keys = shifted.shape[-1]
    whole = keys // VECTOR * VECTOR
    e = np.empty_like(shifted)
    e[..., :whole] = fast_exp(shifted[..., :whole])
    e[..., whole:] = np.exp(shifted[..., whole:].astype(F64)).astype(F32)
    running = [np.zeros(shifted.shape[:-1] + (VECTOR,), F32) for _ in range(2)]
    for i, start in enumerate(range(0, whole, VECTOR)):
        running[i % 2] += e[..., start:start + VECTOR]
    total = _halving(running[0] + running[1]) if whole else np.zeros(shifted.shape[:-1], F32)
    for i in range(whole, keys):
        total = total + e[..., i]
    return e, total


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, additive: np.ndarray) -> np.ndarray:
    """softmax(q kᵀ / √d + additive) v, rounded to bfloat16, as ATen's flash attention computes it on bfloat16
    (batch, heads, length, dim) inputs: queries in blocks of 32 (64 from 192 tokens, 256 from 768), one block of
    keys (up to 512), weights rounded to bfloat16 before the product, the sum's reciprocal applied last."""
    keys = k.shape[-2]
    scale = F32(1.0 / math.sqrt(q.shape[-1]))
    block = 256 if keys >= 768 else 64 if keys >= 192 else 32
    out = np.empty(q.shape, F32)
    for start in range(0, q.shape[-2], block):
        scores = _scores(q[..., start:start + block, :], k) * scale + additive
        with np.errstate(invalid="ignore"):
            e, total = _exp_sum((scores - scores.max(axis=-1, keepdims=True)).astype(F32))
        out[..., start:start + block, :] = to_bfloat16(_weighted(to_bfloat16(e), v) * (F32(1) / total)[..., None])
    return out


def mean_pool(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of ``x`` (batch, length, hidden) over the unmasked positions, summed as ATen's cascade sum does:
    16 rows at a time into a running sum carried up through four levels."""
    weights = mask[:, :, None].astype(F32)
    rows = x * weights
    levels = [np.zeros((x.shape[0], x.shape[2]), F32) for _ in range(4)]
    i, length = 0, x.shape[1]
    while i + 16 <= length:
        for _ in range(16):
            levels[0] = levels[0] + rows[:, i]
            i += 1
        for j in range(1, 4):
            levels[j] = levels[j] + levels[j - 1]
            levels[j - 1] = np.zeros_like(levels[0])
            if i & (15 << (4 * j)):
                break
    for rest in range(i, length):
        levels[0] = levels[0] + rows[:, rest]
    total = ((levels[0] + levels[1]) + levels[2]) + levels[3]
    return total / np.maximum(weights.sum(axis=1), F32(1e-9))


@functools.cache
def _gelu_table() -> np.ndarray:
    return np.load(GELU_TABLE)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU (erf form) of bfloat16 values, rounded to bfloat16: PyTorch's output for that value."""
    bits = np.ascontiguousarray(x, dtype=F32).view(np.uint32) >> np.uint32(16)
    return (_gelu_table()[bits].astype(np.uint32) << np.uint32(16)).view(F32)


def make_gelu_table() -> np.ndarray:
    """PyTorch's bfloat16 GELU of every bfloat16 bit pattern, as bits (this machine's kernel)."""
    import torch

    bits = torch.arange(65536, dtype=torch.int32).to(torch.int16).view(torch.bfloat16)
    return torch.nn.functional.gelu(bits.reshape(1, -1)).reshape(-1).view(torch.int16).numpy().view(np.uint16)


if __name__ == "__main__":  # re-make the GELU table with this machine's PyTorch
    np.save(GELU_TABLE, make_gelu_table())
