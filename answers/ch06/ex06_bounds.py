"""Solution, 06 직접 해보기 3: the bounds check of the cooperative load (0 outside the matrix)."""
from numba import cuda, float32


@cuda.jit(device=True)
def load_or_zero(X, r, c):
    """X[r, c] inside the matrix, 0 outside: a zero adds nothing to the dot product of the partial tile."""
    if r < X.shape[0] and c < X.shape[1]:
        return X[r, c]
    return float32(0.0)
