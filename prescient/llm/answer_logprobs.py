import json
import math

ANSWER_LOGPROBS = "answer_logprobs"


def answer_distribution(text: str) -> list[float]:
    obj = json.loads(text)
    lps = obj["logprobs"]
    if all(v is None for v in lps):
        raise ValueError("none")
    top = max(v for v in lps if v is not None)
    w = [0.0 if v is None else math.exp(v - top) for v in lps]
    s = sum(w)
    return [x / s for x in w]
