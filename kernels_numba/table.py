"""Markdown table of the kernel registry (README's table is generated from it; a test keeps them equal)."""
from .registry import REGISTRY


def markdown():
    """The registry as a Markdown table: level, name, module, description."""
    rows = ["| Level | 이름 | 모듈 | 설명 |", "|---|---|---|---|"]
    for s in REGISTRY:
        rows.append(f"| {s.level} | `{s.name}` | `kernels_numba/{s.module.__name__.rsplit('.', 1)[1]}.py` | {s.description} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown())
