"""The chapters of the course, in order: the one list that the notebooks' first cell, the exercises, the progress
store, the report, nbgrader export, the quiz builder and the tests read.

A chapter's number names everything of it, all in one place:

    course/chNN_<slug>/lesson.py      its analysis helpers (the notebook's `L`)
    course/chNN_<slug>/exercises.py   its "직접 해보기" exercises (registered as "NN-1", "NN-2", ...)
    course/chNN_<slug>/quiz.json      its checkpoint (keys obfuscated; built from answers/chNN/quizNN.json)
    course/chNN_<slug>/notebook.py    the generator of notebooks/NN_<name>.ipynb
    course/chNN_<slug>/record.py      its GPU record (python -m ...record --out FILE; over course.bench)
    course/chNN_<slug>/records/       the records only this chapter reads (course/recorded/: those several read)
    answers/chNN/                     solutions and the readable quiz (not shipped)
    tests/chNN/                       the tests about this chapter only
"""
from dataclasses import dataclass
from pathlib import Path

COURSE = Path(__file__).resolve().parent
ROOT = COURSE.parent


@dataclass(frozen=True)
class Chapter:
    number: str                 # "06": notebooks/06_*.ipynb, course/ch06_shared_tiling/, answers/ch06, tests/ch06
    notebook: str               # the notebook's file name without .ipynb
    title: str
    kernels: tuple              # registered kernels the notebook launches (compiled ahead on a GPU)
    demos: tuple = ()           # bug-demo modules under kernels_numba/demos it launches
    slug: str = ""              # the folder is course/ch<number>_<slug>
    offline: tuple = ()         # other kernels (demo modules) its cells compile offline for sm_80/sm_90 (compiled ahead)

    @property
    def folder(self):
        """'ch06_shared_tiling': the chapter's package under course/."""
        return f"ch{self.number}_{self.slug}"

    @property
    def package(self):
        """'course.ch06_shared_tiling'."""
        return f"course.{self.folder}"

    def module(self, part):
        """The dotted name of one of the chapter's modules: module('lesson') -> 'course.ch06_shared_tiling.lesson'."""
        return f"{self.package}.{part}"

    @property
    def path(self):
        """course/ch06_shared_tiling/ (a Path)."""
        return COURSE / self.folder

    @property
    def records(self):
        """course/chNN_<slug>/records/: the GPU records only this chapter reads (course.records finds them by name)."""
        return self.path / "records"

    @property
    def quiz_path(self):
        """The shipped checkpoint data, course/chNN_<slug>/quiz.json."""
        return self.path / "quiz.json"

    @property
    def generator(self):
        """The notebook generator, course/chNN_<slug>/notebook.py (run: python -m course.chNN_<slug>.notebook)."""
        return self.path / "notebook.py"

    @property
    def ipynb(self):
        """notebooks/NN_<name>.ipynb (in a clone of the course; an installed package has no notebooks/)."""
        return ROOT / "notebooks" / f"{self.notebook}.ipynb"

    @property
    def answers(self):
        """answers/chNN (relative to the clone's root): solutions and the readable quiz answers/chNN/quizNN.json."""
        return f"answers/ch{self.number}"

    @property
    def tests(self):
        """tests/chNN (relative to the clone's root)."""
        return f"tests/ch{self.number}"


CHAPTERS = (
    Chapter("06", "06_shared_memory_tiling", "공유 메모리 타일링",
            ("naive", "tiled", "tiled_pad", "tiled_fma", "tiled_k32"), ("races",), slug="shared_tiling"),
    Chapter("07", "07_register_blocking", "레지스터 블로킹",
            ("tiled", "regblock", "regblock_opt", "regblock_vec"), ("regblock_t16",), slug="register_blocking"),
    Chapter("08", "08_double_buffering", "더블 버퍼링",
            ("regblock", "regblock_opt", "regblock_vec", "db", "db_overlap", "db_ptx"),
            ("db_no_loop_barrier", "db_no_prologue"), slug="double_buffering", offline=("db_overlap_checked_only",)),
    Chapter("09", "09_cp_async_triple_buffering", "cp.async 와 트리플 버퍼링",
            ("db_overlap", "async_copy", "async_vec_s2", "async_vec", "async_vec_s4", "async_bk16", "async_wide"),
            ("async_no_commit", "async_no_wait", "async_wait_too_little", "async_no_barrier_after_wait",
             "async_overwrite_pending", "async_common_tail"), slug="cp_async", offline=("cp_async_one",)),
    Chapter("10", "10_tensor_core_mma", "Tensor Core mma",
            ("mma_simple", "mma_large", "mma_warps", "mma_pipe", "mma_pipe4", "mma_pipe_f16out", "mma_pipe_f16acc",
             "mma_pipe4_lb2", "mma_swizzle", "mma_fast"), ("mma_barriers", "mma_divergent"), slug="tensor_core"),
    Chapter("11", "11_hopper_wgmma_tma", "Hopper wgmma 와 TMA",
            ("wgmma_simple", "wgmma_tma", "wgmma_ws", "mma_fast"),
            ("wgmma_no_wait", "wgmma_no_proxy_fence", "tma_wrong_parity", "tma_short_expect_tx", "ws_producer_parity",
             "ws_release_before_wait"), slug="hopper"),
)


def get(number):
    """The chapter called `number` ("06" ... "11")."""
    for c in CHAPTERS:
        if c.number == str(number):
            return c
    raise KeyError(f"no chapter {number!r}; chapters: {[c.number for c in CHAPTERS]}")


def numbers():
    """["06", "07", ...]: the chapters' numbers in order."""
    return [c.number for c in CHAPTERS]


def of_module(name):
    """The chapter a dotted module name belongs to ('course.ch09_cp_async.lesson' -> chapter 09), else None."""
    for c in CHAPTERS:
        if name == c.package or name.startswith(c.package + "."):
            return c
    return None
