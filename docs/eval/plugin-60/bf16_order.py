"""How PyTorch's bfloat16 Linear sums on this CPU: its outputs against NumPy emulations of three summation orders
(the products of two bfloat16 values are exact in float32, so only the order of the float32 additions differs).

    python docs/eval/plugin-60/bf16_order.py
"""

import numpy as np
import torch


def bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 (round to nearest even) -> float32."""
    u = x.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


def in_order(products: np.ndarray) -> np.ndarray:
    return np.cumsum(products, axis=1, dtype=np.float32)[:, -1, :]  # one float32 rounding an addition, k in order


def main() -> None:
    torch.manual_seed(0)
    torch.set_grad_enabled(False)
    for m, k, n in [(20, 384, 384), (20, 384, 1536), (13, 384, 1536), (20, 1536, 384)]:
        shares: dict[str, list[float]] = {}
        for _ in range(3):
            linear = torch.nn.Linear(k, n).to(torch.bfloat16)
            x = torch.randn(1, m, k).to(torch.bfloat16)
            y = linear(x).float().numpy()[0]
            a, w, b = x.float().numpy()[0], linear.weight.float().numpy(), linear.bias.float().numpy()
            products = a[:, :, None] * w.T[None, :, :]
            odd_first = products.reshape(m, k // 2, 2, n)[:, :, ::-1, :].reshape(m, k, n)
            for name, summed in (("k in order", in_order(products)), ("each pair odd first", in_order(odd_first)),
                                 ("BLAS", a @ w.T)):
                shares.setdefault(name, []).append(float((bf16(summed + b) == y).mean()))
        print((m, k, n), {name: [round(s, 5) for s in v] for name, v in shares.items()})


if __name__ == "__main__":
    main()
