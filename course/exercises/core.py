"""The exercise registry, `check` (run + diagnose + save), and hints on request."""
import ast
import contextlib
import importlib
import importlib.util
import inspect
import json
import linecache
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from kernels_numba.infra import device
from kernels_numba.infra.errors import CourseInputError
from kernels_numba.infra.simulator import errors as simerr, racecheck, state as simstate
from course import chapters
from course.quiz import store
from sim.korean import josa

from .probe import is_user_file, line_text, strict_global_indexing

EXERCISES = {}                       # "06-2" -> Exercise (filled when course.exercises.exNN is imported)
NOTEBOOKS = tuple(chapters.numbers())          # the one list of chapters (course/chapters.py)
_next_hint = {}                      # exercise id -> next hint level asked for in this kernel session
_last = {}                           # exercise id -> the last Result of check() in this kernel session (hint level 2)
VARIANT = [0]                        # added to every random seed: check(..., variant=n) draws other inputs (hidden tests)
SIM_CHECKED = [False]                # True while a GPU check runs after the simulator already passed the same code


@dataclass
class Exercise:
    """One exercise: id, title, the section that teaches it, its runner, its hints, the solution file, the template.

    hints = (level 1: the idea and the section to reread, no formula; level 2: a question for when nothing was checked
    yet). questions: diagnosis code -> the level-2 question about the part of the code that diagnosis blames."""
    id: str
    title: str
    section: str
    run: object
    hints: tuple
    solution: str
    template: str = ""
    name: str = ""                   # the name the template defines (what the student passes to check)
    preamble: str = ""               # the setup cell before the template (imports, constants)
    min_cc: tuple = None             # oldest GPU with the instructions the exercise uses (cp.async, mma: (8, 0))
    questions: dict = field(default_factory=dict)

    @property
    def solution_file(self):
        return self.solution.split("::")[0]

    @property
    def solution_name(self):
        return self.solution.split("::")[1] if "::" in self.solution else self.name


@dataclass
class Result:
    """What `check` found: ok, a stable diagnosis code (tests assert it), the Korean explanation, extra lines."""
    exercise: str
    ok: bool
    code: str
    message: str
    details: list = field(default_factory=list)
    saved: object = None
    where: str = ""                  # the student's line the diagnosis blames ('12행 `code`'), when it is known
    report: object = None            # the simulator race detector's report of the run (res.report.summary()), or None
    raised: bool = False             # the student's code raised (explain_exception wrote the diagnosis)

    def __str__(self):
        head = f"[{self.exercise}] PASS — {self.message}" if self.ok else f"[{self.exercise}] 아직입니다 — {self.message}"
        tail = [] if self.ok else [f"(힌트: hint(\"{self.exercise}\"))"]
        return "\n".join([head, *self.details, *tail])

    __repr__ = __str__


COURSE_PACKAGES = ("course", "kernels_numba")     # importing either picks the device (kernels_numba.infra.device)


def numba_before_course(code):
    """The first import of numba in a cell of code that comes before any import of the course's packages, as
    'line n: `statement`', or None. A notebook cell run on its own (after a kernel restart, say) must let the course
    pick the device first: numba.cuda decides GPU or simulator once, when it is imported."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return None
    imports = sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))),
                     key=lambda n: (n.lineno, n.col_offset))
    for node in imports:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        tops = {n.split(".")[0] for n in names}
        if tops & set(COURSE_PACKAGES):
            return None
        if "numba" in tops:
            return f"line {node.lineno}: `{ast.unparse(node)}`"
    return None


def exercise(id, title, section, hints, solution, template="", name="", preamble="", min_cc=None, questions=None):
    """Register the decorated function `run(student) -> Result` as exercise `id` (solution: 'answers/f.py::name')."""
    if len(hints) != 2:
        raise ValueError(f"exercise {id}: two hint levels expected")
    for cell, code in (("preamble", preamble), ("template", template)):
        if (bad := numba_before_course(code)) is not None:
            raise ValueError(f"exercise {id}: its {cell} cell imports numba before the course ({bad}): after a kernel "
                             "restart that cell would let numba pick the device; import course first")
    folder = chapters.get(id.split("-")[0]).answers        # answers/chNN: the chapter's own (course/chapters.py)
    if not solution.startswith(folder + "/"):
        raise ValueError(f"exercise {id}: its solution {solution!r} must be in {folder}/")

    def deco(run):
        EXERCISES[id] = Exercise(id, title, section, run, tuple(hints), solution, template.strip("\n"), name,
                                 preamble.strip("\n"), min_cc, dict(questions or {}))
        return run
    return deco


def _load(nb):
    name = chapters.get(nb).module("exercises")        # course/chNN_<slug>/exercises.py
    if importlib.util.find_spec(name) is not None:     # a notebook without exercises has no module
        importlib.import_module(name)


def get(ex_id):
    """The Exercise with this id ("06-2"); a clear error for an unknown id."""
    ex_id = str(ex_id).strip()
    nb = ex_id.split("-")[0]
    if nb in NOTEBOOKS:
        _load(nb)
    if ex_id not in EXERCISES:
        for n in NOTEBOOKS:
            _load(n)
        known = ", ".join(sorted(EXERCISES))
        raise CourseInputError(f"'{ex_id}' 라는 연습 문제는 없습니다.", f"no exercise '{ex_id}'.",
                               f"다음 중 하나를 쓰세요: {known}", f"use one of: {known}")
    return EXERCISES[ex_id]


def template(ex_id):
    """The starter code of an exercise (the notebook cell shows exactly this)."""
    return get(ex_id).template


def fail(ex_id, code, message, *details, where=""):
    """A failed Result (where: the student's line it blames, e.g. probe.line_text(site))."""
    return Result(ex_id, False, code, message, [d for d in details if d], where=where or "")


def technique(ex_id, code, what, why, *details, where=""):
    """A correct value reached without the technique the exercise teaches: not a PASS, a verdict of its own."""
    return fail(ex_id, code, f"맞는 값이지만 {josa(what, '을/를')} 쓰지 않았습니다: {why}", *details, where=where)


@contextlib.contextmanager
def context(line):
    """with context("  (M, N, K) = ..."): an exception raised inside carries this line to its diagnosis."""
    try:
        yield
    except Exception as exc:
        if getattr(exc, "_sgemm_context", None) is None:
            try:
                exc._sgemm_context = line
            except AttributeError:
                pass
        raise


def passed(ex_id, message="정답입니다.", *details):
    """A passing Result."""
    return Result(ex_id, True, "pass", message, [d for d in details if d])


class Foreign(str):
    """A line of text the simulator or its race detector wrote (the checkers pass it on as it is)."""


def _student_site(tb):
    """(file, line) of the deepest traceback frame in the student's own code (a notebook cell or their file)."""
    hit = None
    for fr in traceback.extract_tb(tb):
        if is_user_file(fr.filename):
            hit = (fr.filename, fr.lineno)
    return hit


def _thread_free(text):
    """An exception's text without the simulator's 'tid=[..] ctaid=[..]: ' prefix."""
    return text.split(": ", 1)[1] if text.startswith("tid=") and ": " in text else text


def explain_exception(ex_id, exc, student):
    """Turn an exception raised while running the student's code into a diagnosis (with the shape it ran on)."""
    where = line_text(_student_site(exc.__traceback__))
    at = f"  위치: {where}" if where else ""
    shape = getattr(exc, "_sgemm_context", None) or ""

    def out(code, message, *details):
        return fail(ex_id, code, message, shape, *details, at, where=where)
    if isinstance(exc, NotImplementedError):
        msg = _thread_free(str(exc)) or "TODO 를 채우세요."
        return fail(ex_id, "not_implemented", f"아직 구현하지 않았습니다 (NotImplementedError): {msg}", where=where)
    if isinstance(exc, simerr.MisalignedAddressError):
        return out("misaligned", "정렬되지 않은 주소입니다 (misaligned address).", Foreign(str(exc)))
    if isinstance(exc, simerr.DivergentBarrierError):
        return out("divergent_barrier", "블록의 일부 스레드만 배리어에 도달합니다 (divergent barrier): 배리어를 모든 "
                   "스레드가 지나는 곳(조건문과 early return 밖)에 두세요.", Foreign(str(exc)))
    if isinstance(exc, simerr.NotCompilableError) and exc.kind == "plain_function":
        return out("not_device_function", "`@cuda.jit(device=True)` 가 빠졌습니다: 커널이 보통 파이썬 함수를 부릅니다. GPU 에서는 "
                   "이 커널이 컴파일되지 않습니다 (커널은 @cuda.jit 로 컴파일한 함수만 부를 수 있습니다).", Foreign(str(exc)))
    if isinstance(exc, simerr.NotCompilableError) and exc.kind == "try_except":
        return out("try_except", "커널 안에 try/except 가 있습니다: GPU 에서는 커널의 예외 처리가 컴파일되지 않고, 배열 밖 읽기는 "
                   "예외 없이 배열 밖의 메모리를 읽습니다. 예외를 잡는 대신 읽기 전에 인덱스가 배열 안인지 if 로 확인하세요.",
                   Foreign(str(exc)))
    if isinstance(exc, simerr.SimulatorFault):
        return out("simulator_fault", "시뮬레이터가 하드웨어 규칙 위반을 찾았습니다.", Foreign(str(exc)))
    if isinstance(exc, IndexError):
        return out("out_of_bounds", "배열 밖을 읽거나 썼습니다 (index out of bounds): 아래 위치의 인덱스가 배열의 모양 "
                   "안에 드는지, 경계 검사가 빠지지 않았는지 보세요.",
                   Foreign(f"  {type(exc).__name__}: {_thread_free(str(exc))}"))
    if isinstance(exc, CourseInputError):
        return out("input", "입력이 맞지 않습니다.", Foreign(str(exc)))
    if isinstance(exc, ZeroDivisionError):
        return out("zero_division", f"0 으로 나눴습니다 ({_thread_free(str(exc))}): 나누는 값이 0 이 될 수 있는 입력이 "
                   "있습니다.")
    plain = _plain_function_error(exc, student)
    if plain:
        return out("not_device_function", plain)
    return out("error", f"실행 중 오류가 났습니다: {type(exc).__name__}: {_thread_free(str(exc))}")


def _plain_function_error(exc, student):
    """The message for a kernel-only name of numba.cuda (cuda.local, cuda.shared, cuda.threadIdx, ...) missing because
    the student's function is a plain Python function, not compiled with @cuda.jit (None otherwise). Told from the
    function object (a compiled one has .py_func), never from its source."""
    m = re.search(r"module 'numba\.cuda[\w.]*' has no attribute '(\w+)'", str(exc))
    if not isinstance(exc, AttributeError) or m is None or student is None or hasattr(student, "py_func") \
            or not callable(student):
        return None
    name = getattr(student, "__name__", "함수")
    return (f"`@cuda.jit(device=True)` 가 빠졌습니다: `{name}` 함수가 @cuda.jit 로 컴파일되지 않은 보통 파이썬 함수라서 cuda.{m.group(1)} 처럼 GPU "
            "커널 안에서만 있는 기능을 쓸 수 없습니다 (GPU 에서는 커널이 컴파일되지 않습니다: 커널은 @cuda.jit 로 "
            f"컴파일한 함수만 부를 수 있습니다). `def {name}` 바로 위에 `@cuda.jit(device=True)` 를 붙이세요.")


def _unfinished(ex, student):
    """A not_implemented Result when the function's body still has a `raise NotImplementedError` statement (read from
    its syntax tree, so a comment or docstring never counts). Only the GPU path needs it: there a kernel's raise is
    ignored, while on the simulator the exception itself reaches explain_exception."""
    fn = getattr(student, "py_func", student)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                return fail(ex.id, "not_implemented", "아직 구현하지 않았습니다: `raise NotImplementedError` 줄을 지우고 "
                            "TODO 를 채우세요.")
    return None


def _save(res):
    try:
        saver = getattr(store, "save_exercise", None)
        if saver is not None:
            res.saved = saver(res.exercise, res.ok, res.code)
    except Exception as e:           # saving must never hide the diagnosis
        res.details.append(f"(결과를 저장하지 못했습니다: {e})")


def gpu_note(text=" (GPU 에는 경쟁 검출기가 없습니다: 시뮬레이터에서도 확인하세요.)"):
    """The 'races are not checked on a GPU' note, or '' on the simulator or when the simulator pre-check passed."""
    return "" if device.SIMULATOR or SIM_CHECKED[0] else text


def _names_used(code):
    """Global names a function's code (and the code of functions nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names_used(const)
    return names


def _home_of(value, name, fn):
    """A module (the function's own, then numba, numpy, math) that holds `value` under `name`, or None."""
    for modname in (fn.__module__, "numba", "numpy", "math"):
        mod = sys.modules.get(modname)
        if modname != "__main__" and mod is not None and getattr(mod, name, None) is value:
            return modname
    return None


def _global_lines(fn, defined, seen):
    """Source lines that give a subprocess the globals `fn` uses and `defined` (the preamble's names) lacks: modules are
    imported again, importable objects (numba's uint32, a kernel module's device function) imported from their module,
    numbers and strings written out, and functions written in the notebook itself copied with their own globals."""
    lines = []
    for name in sorted(_names_used(fn.__code__) - defined - seen):
        if name not in fn.__globals__:
            continue                                          # a builtin, or an attribute name such as .shape
        seen.add(name)
        value = fn.__globals__[name]
        mod, qual = getattr(value, "__module__", None), getattr(value, "__qualname__", getattr(value, "__name__", None))
        if inspect.ismodule(value):
            lines.append(f"import {value.__name__} as {name}")
        elif isinstance(value, (bool, int, float, str)) and not isinstance(value, type):
            lines.append(f"{name} = {value!r}")
        elif (inspect.isclass(value) or inspect.isroutine(value)) and mod not in (None, "__main__") and qual \
                and "<" not in qual and "." not in qual:
            lines.append(f"from {mod} import {qual} as {name}")
        elif (home := _home_of(value, name, fn)) is not None:
            lines.append(f"from {home} import {name}")          # e.g. numba's uint32 (an instance, not a class)
        else:
            inner = getattr(value, "py_func", value)
            try:
                copy = _copy_at_origin(inner)
            except (OSError, TypeError):
                continue                                      # nothing to copy: the subprocess names what is missing
            lines += _global_lines(inner, defined, seen)
            lines.append(copy if inner.__name__ == name else f"{copy}\n{name} = {inner.__name__}")
    return lines


def at_origin(ns, filename, first, src, label=None, text=None):
    """Define the code `src` in namespace `ns` as if it were compiled where it was written: in file `filename` from line
    `first` on. A simulator subprocess re-running a notebook cell's function then names the cell's own lines in its
    race reports, tracebacks and diagnoses, as the in-process simulator does. label: the cell's 'In [n]' (the
    subprocess has no IPython to ask); text: the cell's lines (for linecache), None for a file that exists."""
    if text is not None:
        linecache.cache[filename] = (sum(map(len, text)), None, list(text), filename)   # mtime None: kept
    if label:
        simstate.name_cell(filename, label)
    exec(compile("\n" * (first - 1) + src, filename, "exec"), ns)


def _copy_at_origin(fn):
    """The module line that defines `fn` again from its source at its own file and line (at_origin)."""
    lines, first = inspect.getsourcelines(fn)
    src = textwrap.dedent("".join(lines))
    filename = fn.__code__.co_filename
    text = None if os.path.isfile(filename) else linecache.getlines(filename)
    return f"_at_origin(globals(), {filename!r}, {first}, {src!r}, {simstate.cell_label(filename)!r}, {text!r})"


def student_module(ex, student):
    """Source of a module defining the student's function: the exercise's preamble, the globals the function uses
    that the preamble does not define (imports, constants, helpers from the notebook), then the function. Functions
    from the student's cells or files are compiled at their own file and lines (at_origin), so that what the subprocess
    reports names the student's cell and line; a helper the preamble defines and the notebook ran is taken from the
    notebook the same way."""
    fn = getattr(student, "py_func", student)
    own = _copy_at_origin(fn)
    alias = f"\n{ex.name} = {fn.__name__}\n" if fn.__name__ != ex.name else "\n"
    ns = {}
    exec(compile(ex.preamble, "<preamble>", "exec"), ns)        # the names the preamble defines (imports only)
    ran = {k for k, v in ns.items()                              # the preamble's functions, as the notebook ran them
           if getattr(getattr(getattr(v, "py_func", v), "__code__", None), "co_filename", None) == "<preamble>"
           and getattr(fn.__globals__.get(k), "__module__", None) == "__main__"}
    defined = (set(ns) - ran) | {fn.__name__}
    extra = "\n".join(["from course.exercises.core import at_origin as _at_origin", *_global_lines(fn, defined, set())])
    return f"{ex.preamble}\n{extra}\n\n{own}{alias}"


def simulate(ex, student, variant=0, timeout=600):
    """The same check on the simulator in a subprocess (Result, or None with the reason if it could not run).

    On a GPU this runs first: the race detector, NaN-filled shared memory and bounds checks exist only there, and a
    kernel that reads out of bounds on the GPU can leave the CUDA context unusable."""
    try:
        src = student_module(ex, student)
    except (OSError, TypeError) as e:
        return None, f"소스를 읽지 못했습니다 ({e})"
    root = str(Path(__file__).resolve().parents[2])
    with tempfile.TemporaryDirectory() as d:
        Path(d, "student_code.py").write_text(src, encoding="utf-8")
        code = ("import json, sys; sys.path.insert(0, sys.argv[1])\n"
                "from course.exercises import check\nimport student_code as m\n"
                f"r = check({ex.id!r}, getattr(m, {ex.name!r}), save=False, variant={int(variant)})\n"
                "print('@@SGEMM_RESULT@@' + json.dumps(dict(ok=r.ok, code=r.code, message=r.message, details=r.details, "
                "where=r.where)))")
        env = dict(os.environ, SGEMM_DEVICE="sim",
                   PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
        try:
            r = subprocess.run([sys.executable, "-c", code, d], env=env, capture_output=True, text=True,
                               timeout=timeout, cwd=d)
        except subprocess.TimeoutExpired:
            return None, f"시뮬레이터 확인이 {timeout} 초 안에 끝나지 않았습니다"
    line = next((x for x in r.stdout.splitlines() if x.startswith("@@SGEMM_RESULT@@")), None)
    if line is None:
        return None, f"시뮬레이터 확인이 실패했습니다: {(r.stderr or r.stdout)[-300:]}"
    d = json.loads(line[len("@@SGEMM_RESULT@@"):])
    return Result(ex.id, d["ok"], d["code"], d["message"], d["details"], where=d.get("where", "")), None


def _run(ex, student, variant):
    VARIANT[0] = int(variant)
    try:
        with strict_global_indexing():
            return ex.run(student)
    except Exception as exc:         # the student's code may fail in any way: explain, never crash the cell
        res = explain_exception(ex.id, exc, student)
        res.raised = True
        return res
    finally:
        VARIANT[0] = 0


def _gpu_check(ex, student, variant):
    """GPU mode, a kernel or device function: the simulator first (in a subprocess), then the GPU."""
    done = _unfinished(ex, student)
    if done:
        return done
    print(f"[{ex.id}] 시뮬레이터에서 먼저 확인합니다 (경쟁 검출기·경계 검사; 몇 초)…", flush=True)
    sim, why = simulate(ex, student, variant)
    if sim is not None and not sim.ok:
        sim.details.insert(0, "  (시뮬레이터에서 찾았습니다: GPU 에서는 실행하지 않았습니다. 경쟁 검출기와 경계 검사는 "
                              "시뮬레이터에만 있고, 배열 밖 접근은 GPU 의 CUDA 컨텍스트를 망가뜨릴 수 있습니다.)")
        return sim
    if device.lacks(ex.min_cc):      # a T4 has no cp.async / m16n8k16: the simulator's verdict is the verdict
        if sim is None:
            return fail(ex.id, "not_checked", f"이 GPU 에는 이 문제의 명령(CC {ex.min_cc[0]}.{ex.min_cc[1]})이 없고, "
                        f"시뮬레이터 확인도 하지 못했습니다: {why}")
        sim.details.append(f"  (이 GPU(CC {device.compute_capability()[0]}.{device.compute_capability()[1]})에는 "
                           f"CC {ex.min_cc[0]}.{ex.min_cc[1]} 명령이 없어 시뮬레이터에서만 확인했습니다.)")
        return sim
    SIM_CHECKED[0] = sim is not None
    try:
        res = _run(ex, student, variant)
    finally:
        SIM_CHECKED[0] = False
    if sim is None:
        res.details.append(f"  (시뮬레이터 확인은 건너뛰었습니다: {why}. GPU 결과만입니다.)")
    elif res.raised:                 # the GPU run did not finish: say where the error came from, claim no GPU result
        res.details.append("  (시뮬레이터(경쟁 검출기 포함)에서는 통과했고, GPU 에서 실행하다 위 오류가 났습니다.)")
    else:
        res.details.append("  (시뮬레이터(경쟁 검출기 포함)와 GPU 에서 모두 실행했습니다.)")
    return res


def check(ex_id, student=None, save=True, variant=0):
    """Run your answer to exercise `ex_id` and return PASS or a diagnosis of what is wrong (saved to your progress).

    `variant` draws other random inputs (the graders' hidden tests use it)."""
    ex = get(ex_id)
    if student is None:
        caller = inspect.currentframe().f_back.f_globals
        student = caller.get(ex.name) if ex.name else None
        if student is None:
            raise CourseInputError(f"{ex.id}: 채점할 함수를 넘기세요.", f"{ex.id}: pass the function to check.",
                                   f"예: check(\"{ex.id}\", {ex.name or '내_함수'})",
                                   f"e.g. check(\"{ex.id}\", {ex.name or 'my_function'})")
    if not device.SIMULATOR and hasattr(student, "py_func"):
        res = _gpu_check(ex, student, variant)
    else:
        res = _run(ex, student, variant)
    prev = _last.get(ex.id)
    if not res.ok and (prev is None or prev.code != res.code) and _next_hint.get(ex.id, 1) > 2:
        _next_hint[ex.id] = 2            # a new mistake: the next hint asks about it, not the solution's path again
    _last[ex.id] = res
    if getattr(res, "report", None) is not None:     # the report its message points to (course.race_report())
        racecheck.point_to(res.report)
    if save:
        _save(res)
    return res


def hint_text(ex, level, last=None):
    """The text of hint `level` of exercise `ex`; level 2 asks about what `last` (the last Result) blamed."""
    if level == 1:
        return f"{ex.hints[0]} ({josa(ex.section, '을/를')} 다시 읽어 보세요.)  (더 필요하면 hint 를 한 번 더)"
    if level == 2:
        if last is None or last.ok or last.code not in ex.questions:
            return ex.hints[1]
        place = f" 진단이 가리킨 곳은 여러분의 코드 {last.where} 입니다." if last.where else ""
        return f"지난 확인에서 `{last.code}` 진단이 나왔습니다.{place} {ex.questions[last.code]}"
    return (f"풀이는 강좌 저장소의 `{ex.solution_file}` 에 있습니다 (pip install . 로 설치한 패키지에는 없음). 먼저 "
            f"{josa(ex.section, '을/를')} 다시 읽고 스스로 풀어 본 뒤에 여세요.")


def hint(ex_id, level=None):
    """Hint level 1 (the idea and the section to reread), 2 (a question about the part of your code the last check
    blamed), then 3 (where the solution is); each call goes one level further unless `level` is given."""
    ex = get(ex_id)
    if level is None:
        level = _next_hint.get(ex.id, 1)
        _next_hint[ex.id] = min(level + 1, 3)
    if level not in (1, 2, 3):
        raise CourseInputError(f"힌트 단계는 1, 2, 3 입니다 (받은 값: {level!r}).",
                               f"hint level is 1, 2 or 3 (got {level!r}).")
    print(f"[{ex.id} 힌트 {level}] {hint_text(ex, level, _last.get(ex.id))}")


def catalog():
    """All exercises of all notebooks, in order."""
    for n in NOTEBOOKS:
        _load(n)
    return [EXERCISES[k] for k in sorted(EXERCISES, key=lambda s: tuple(int(p) for p in s.split("-")))]


