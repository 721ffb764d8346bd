"""The chapters of the course, in order: one list that the notebooks' first cell, the progress store and the
exercises read (a chapter's number names its notebook, its lesson module, its exercises and its quiz)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Chapter:
    number: str                 # "06": notebooks/06_*.ipynb, course/lesson06.py, exercises ex06, quiz06
    notebook: str
    title: str
    kernels: tuple              # registered kernels the notebook launches (compiled ahead on a GPU)
    demos: tuple = ()           # bug-demo modules under kernels_numba/demos it launches


CHAPTERS = (
    Chapter("06", "06_shared_memory_tiling", "공유 메모리 타일링",
            ("naive", "tiled", "tiled_pad", "tiled_fma", "tiled_k32"), ("races",)),
    Chapter("07", "07_register_blocking", "레지스터 블로킹",
            ("tiled", "regblock", "regblock_opt", "regblock_vec"), ("regblock_t16",)),
    Chapter("08", "08_double_buffering", "더블 버퍼링",
            ("regblock", "regblock_opt", "regblock_vec", "db", "db_overlap", "db_ptx"),
            ("db_no_loop_barrier", "db_no_prologue")),
    Chapter("09", "09_cp_async_triple_buffering", "cp.async 와 트리플 버퍼링",
            ("db_overlap", "async_copy", "async_vec_s2", "async_vec", "async_vec_s4", "async_bk16", "async_wide"),
            ("async_no_commit", "async_no_wait", "async_wait_too_little", "async_no_barrier_after_wait",
             "async_overwrite_pending", "async_common_tail")),
    Chapter("10", "10_tensor_core_mma", "Tensor Core mma",
            ("mma_simple", "mma_large", "mma_warps", "mma_pipe", "mma_pipe4", "mma_pipe_f16out", "mma_pipe_f16acc",
             "mma_pipe4_lb2", "mma_swizzle", "mma_fast"), ("mma_barriers", "mma_divergent")),
    Chapter("11", "11_hopper_wgmma_tma", "Hopper wgmma 와 TMA",
            ("wgmma_simple", "wgmma_tma", "wgmma_ws", "mma_fast"),
            ("wgmma_no_wait", "wgmma_no_proxy_fence", "tma_wrong_parity", "tma_short_expect_tx", "ws_producer_parity",
             "ws_release_before_wait")),
)


def get(number):
    """The chapter called `number` ("06" ... "10")."""
    for c in CHAPTERS:
        if c.number == str(number):
            return c
    raise KeyError(f"no chapter {number!r}; chapters: {[c.number for c in CHAPTERS]}")


def numbers():
    return [c.number for c in CHAPTERS]
