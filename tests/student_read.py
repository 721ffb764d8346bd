"""A student's read of all 22 exercises, run the way the notebooks run them: in a real Jupyter kernel (jupyter_client,
this interpreter's kernel), one kernel per notebook, the exercise's preamble cell, the student's cell, then the check
cell `check("NN-M", my_...)` and, after a failure, `hint("NN-M", 2)`.

    python tests/student_read.py [NB ...] [--json OUT]        (make student-read: every notebook)

The submissions are written by hand, not generated: wrong answers with the mistakes students make (several changes
at once, a different structure, a wrong idea rather than a typo), and right answers in styles the corpus does not
have. Prints a table: exercise, submission, right or wrong, the verdict, and whether the diagnosis is the one that
names the real mistake.
"""
import argparse
import json
import queue
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

W, R = "wrong", "right"
SUBMISSIONS = [
    # ---------------------------------------------------------------- 06
    ("06-1", W, "load_only", {"extra_pad"}, '''
def my_conflict_free_pads(max_pad=4):
    out = []
    for p in range(max_pad + 1):
        reps = banks.analyze(banks.Layout((16, 16), pad=p), lambda x, y, z: (y, 0), (16, 16), kind="load")
        if max(r.wavefronts for r in reps) == 1:
            out.append(p)
    return out
'''),
    ("06-1", W, "guess_zero", {"missing_pad"}, '''
def my_conflict_free_pads(max_pad=4):
    return [0]
'''),
    ("06-1", W, "transposed_store", {"extra_pad", "missing_pad"}, '''
def my_conflict_free_pads(max_pad=4):
    good = []
    for p in range(max_pad + 1):
        lay = banks.Layout((16, 16), pad=p)
        s = max(r.wavefronts for r in banks.analyze(lay, lambda x, y, z: (x, y), (16, 16), kind="store"))
        l = max(r.wavefronts for r in banks.analyze(lay, lambda x, y, z: (y, 0), (16, 16), kind="load"))
        if s == 1 and l == 1:
            good.append(p)
    return good
'''),
    ("06-1", R, "set_intersection", {"pass"}, '''
def my_conflict_free_pads(max_pad=4):
    def ok(kind, f):
        return {p for p in range(max_pad + 1)
                if all(r.wavefronts == 1 for r in banks.analyze(banks.Layout((16, 16), pad=p), f, (16, 16), kind=kind))}
    return sorted(ok("store", lambda x, y, z: (y, x)) & ok("load", lambda x, y, z: (y, 0)))
'''),
    ("06-2", W, "one_thread_loads_rows", {"not_cooperative"}, '''
@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    for t in range((A.shape[1] + T8 - 1) // T8):
        if tx == 0:                          # one thread per row loads the whole row of both tiles
            for j in range(T8):
                As[ty, j] = load_or_zero(A, row, t * T8 + j)
                Bs[ty, j] = load_or_zero(B, t * T8 + ty, cuda.blockIdx.x * T8 + j)
        cuda.syncthreads()
        for k in range(T8):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("06-2", W, "no_shared_memory", {"no_shared_tile"}, '''
@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    for k in range(A.shape[1]):
        acc += load_or_zero(A, row, k) * load_or_zero(B, k, col)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("06-2", W, "barrier_inside_bounds_check", {"divergent_barrier"}, '''
@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    for t in range((A.shape[1] + T8 - 1) // T8):
        As[ty, tx] = load_or_zero(A, row, t * T8 + tx)
        Bs[ty, tx] = load_or_zero(B, t * T8 + ty, col)
        if row < C.shape[0] and col < C.shape[1]:
            cuda.syncthreads()
            for k in range(T8):
                acc += As[ty, k] * Bs[k, tx]
            cuda.syncthreads()
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("06-2", W, "tile_rows_and_columns_mixed", {"all_wrong", "wrong_values", "per_thread"}, '''
@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    for t in range((A.shape[1] + T8 - 1) // T8):
        As[ty, tx] = load_or_zero(A, row, t * T8 + tx)
        Bs[ty, tx] = load_or_zero(B, t * T8 + ty, col)
        cuda.syncthreads()
        for k in range(T8):
            acc += As[k, ty] * Bs[tx, k]      # indices of both tiles transposed
        cuda.syncthreads()
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("06-2", R, "global_index_helper", {"pass"}, '''
@cuda.jit(device=True)
def tile_element(X, tile, r, c, along_rows):
    if along_rows:
        return load_or_zero(X, r, tile * T8 + c)
    return load_or_zero(X, tile * T8 + r, c)

@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    for t in range((A.shape[1] + T8 - 1) // T8):
        As[ty, tx] = tile_element(A, t, row, tx, True)
        Bs[ty, tx] = tile_element(B, t, ty, col, False)
        cuda.syncthreads()     # RAW
        for k in range(T8):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()     # WAR
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("06-3", W, "shape_axes_swapped", {"out_of_bounds", "inside_zero"}, '''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    if r < X.shape[1] and c < X.shape[0]:
        return X[r, c]
    return float32(0.0)
'''),
    ("06-3", W, "clamp_instead_of_zero", {"outside_not_zero"}, '''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    rr = min(r, X.shape[0] - 1)
    cc = min(c, X.shape[1] - 1)
    return X[rr, cc]
'''),
    ("06-3", W, "only_rows_checked", {"out_of_bounds"}, '''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    if r >= X.shape[0]:
        return float32(0.0)
    return X[r, c]
'''),
    ("06-3", W, "calls_the_given_helper", {"shipped_helper"}, '''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    return load_or_zero(X, r, c)       # 06-2's helper, still imported in this notebook
'''),
    ("06-3", R, "minus_one_and_int_zero", {"pass"}, '''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    if r <= X.shape[0] - 1 and c <= X.shape[1] - 1:
        return X[r, c]
    return 0
'''),
    # ---------------------------------------------------------------- 07
    ("07-1", W, "row_col_returned_swapped", {"return_order"}, '''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    return tx * TN, ty * TM
'''),
    ("07-1", W, "stride_from_block_width", {"overlap", "out_of_tile", "tm_tn_mixed"}, '''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    return ty * (BM // BLOCK[0]), tx * (BN // BLOCK[1])
'''),
    ("07-1", W, "adds_block_offset", {"block_offset"}, '''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    return cuda.blockIdx.y * BM + ty * TM, cuda.blockIdx.x * BN + tx * TN
'''),
    ("07-1", R, "comment_mentions_lesson07", {"pass"}, '''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    # like L7.load_map in lesson07, but for the C sub-tile: tid -> (row, col)
    tid = tx + ty * BLOCK[0]
    r, c = divmod(tid, BLOCK[0])
    return r * TM, c * TN
'''),
    ("07-2", W, "column_major_map", {"uncoalesced"}, '''
@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    per_pass = THREADS // rows            # columns one pass covers when a column is filled by consecutive threads
    return tid % rows, tid // rows + p * per_pass
'''),
    ("07-2", W, "hard_coded_stride", {"out_of_tile", "overlap", "pass_repeat"}, '''
@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    return tid // cols + p * 16, tid % cols
'''),
    ("07-2", W, "calls_the_notebook_map", {"host_helper"}, '''
import course.ch07_register_blocking.lesson as L7

@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    return L7.load_map(THREADS, rows, cols, THREADS // cols)[(tid, p)]
'''),
    ("07-2", R, "comment_names_load_map", {"pass"}, '''
@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    # the same rule as L7.load_map (lesson07), written with integers
    stride = THREADS // cols
    return p * stride + tid // cols, tid % cols
'''),
    ("07-3", W, "inner_product_no_registers", {"no_register_reuse"}, '''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    for m in range(TM):
        for n in range(TN):
            for k in range(BK):
                rC[m, n] += As[thread_row + m, k] * Bs[k, thread_col + n]
'''),
    ("07-3", W, "rB_never_filled", {"register_unfilled"}, '''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    for k in range(BK):
        for m in range(TM):
            rA[m] = As[thread_row + m, k]
        for m in range(TM):
            for n in range(TN):
                rC[m, n] += rA[m] * rB[n]
'''),
    ("07-3", W, "tile_indices_transposed", {"out_of_bounds"}, '''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    for k in range(BK):
        for m in range(TM):
            rA[m] = As[k, thread_row + m]
        for n in range(TN):
            rB[n] = Bs[thread_col + n, k]
        for m in range(TM):
            for n in range(TN):
                rC[m, n] += rA[m] * rB[n]
'''),
    ("07-3", R, "register_pairs_unrolled", {"pass"}, '''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    for k in range(BK):
        rB[0] = Bs[k, thread_col]
        rB[1] = Bs[k, thread_col + 1]
        for m in range(TM):
            rA[m] = As[thread_row + m, k]
            rC[m, 0] += rA[m] * rB[0]
            rC[m, 1] += rA[m] * rB[1]
'''),
    ("07-4", W, "warps_rounded_down", {"zero_division", "warps_round_down"}, '''
def my_register_limited_blocks(regs, threads):
    per_warp = -(-regs * 32 // 256) * 256
    warps = threads // 32
    return (16384 // per_warp) * 4 // warps
'''),
    ("07-4", W, "rounds_to_four", {"no_alloc_unit"}, '''
def my_register_limited_blocks(regs, threads):
    warps = -(-threads // 32)
    per_thread = -(-regs // 4) * 4
    return (16384 // (per_thread * 32)) * 4 // warps
'''),
    ("07-4", W, "whole_file_at_once", {"no_subpartition"}, '''
def my_register_limited_blocks(regs, threads):
    warps = (threads + 31) // 32
    per_warp = (regs * 32 + 255) // 256 * 256
    return 65536 // per_warp // warps
'''),
    ("07-4", W, "threads_not_warps", {"block_threads"}, '''
def my_register_limited_blocks(regs, threads):
    per_warp = (regs * 32 + 255) // 256 * 256
    threads_per_sm = (16384 // per_warp) * 4 * 32
    return threads_per_sm // threads
'''),
    ("07-4", R, "steps_in_a_table", {"pass"}, '''
def my_register_limited_blocks(regs, threads):
    rules = {"unit": 256, "parts": 4, "part_size": 16384}
    warps = len(range(0, threads, 32))
    per_warp = rules["unit"] * ((regs * 32 - 1) // rules["unit"] + 1)
    return rules["parts"] * (rules["part_size"] // per_warp) // warps
'''),
    # ---------------------------------------------------------------- 08
    ("08-1", W, "one_buffer_too_few", {"compute_buffer"}, '''
def my_stage_table(n_tiles, stages):
    rows = []
    for kt in range(n_tiles):
        nxt = kt + stages - 1
        rows.append((kt, kt % (stages - 1), nxt if nxt < n_tiles else None, nxt % stages if nxt < n_tiles else None))
    return rows
'''),
    ("08-1", W, "prefetch_one_too_far", {"prefetch_tile", "past_end", "missing_prefetch"}, '''
def my_stage_table(n_tiles, stages):
    return [(kt, kt % stages, kt + stages if kt + stages < n_tiles else None,
             (kt + stages) % stages if kt + stages < n_tiles else None) for kt in range(n_tiles)]
'''),
    ("08-1", W, "three_values_per_row", {"input"}, '''
def my_stage_table(n_tiles, stages):
    return [(kt, kt % stages, kt + stages - 1) for kt in range(n_tiles)]
'''),
    ("08-1", R, "deque_of_buffers", {"pass"}, '''
from collections import deque

def my_stage_table(n_tiles, stages):
    free = deque([stages - 1])
    owner = {}
    for t in range(min(stages - 1, n_tiles)):
        owner[t] = t                       # tile -> buffer
    table, nxt = [], stages - 1
    for kt in range(n_tiles):
        buf = owner[kt]
        if nxt < n_tiles:
            b = free.popleft()
            owner[nxt] = b
            table.append((kt, buf, nxt, b))
            nxt += 1
        else:
            table.append((kt, buf, None, None))
        free.append(buf)
    return table
'''),
    ("08-2", W, "loads_after_compute", {"load_after_compute"}, '''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)
    Bs = cuda.shared.array((2, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    for kt in range(n_tiles - 1):
        acc += tile_dot(As, Bs, kt % 2, ty, tx)
        a = load_or_zero(A, row, (kt + 1) * T8 + tx)
        b = load_or_zero(B, (kt + 1) * T8 + ty, col)
        As[(kt + 1) % 2, ty, tx] = a
        Bs[(kt + 1) % 2, ty, tx] = b
        cuda.syncthreads()
    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("08-2", W, "A_and_B_buffers_mixed", {"store_into_current", "race", "nan"}, '''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)
    Bs = cuda.shared.array((2, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    for kt in range(n_tiles - 1):
        a = load_or_zero(A, row, (kt + 1) * T8 + tx)
        b = load_or_zero(B, (kt + 1) * T8 + ty, col)
        acc += tile_dot(As, Bs, kt % 2, ty, tx)
        As[(kt + 1) % 2, ty, tx] = a
        Bs[kt % 2, ty, tx] = b
        cuda.syncthreads()
    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("08-2", W, "barrier_every_other_iteration", {"race"}, '''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)
    Bs = cuda.shared.array((2, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    for kt in range(n_tiles - 1):
        a = load_or_zero(A, row, (kt + 1) * T8 + tx)
        b = load_or_zero(B, (kt + 1) * T8 + ty, col)
        acc += tile_dot(As, Bs, kt % 2, ty, tx)
        As[(kt + 1) % 2, ty, tx] = a
        Bs[(kt + 1) % 2, ty, tx] = b
        if kt % 2 == 1:               # "two buffers, so a barrier every second tile is enough"
            cuda.syncthreads()
    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("08-2", R, "loop_shifted_by_one", {"pass"}, '''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)
    Bs = cuda.shared.array((2, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    for kt in range(n_tiles - 1):
        t = kt + 1                                # the tile that arrives
        a = load_or_zero(A, row, t * T8 + tx)
        b = load_or_zero(B, t * T8 + ty, col)
        acc += tile_dot(As, Bs, (t - 1) % 2, ty, tx)
        As[t % 2, ty, tx] = a
        Bs[t % 2, ty, tx] = b
        cuda.syncthreads()
    acc += tile_dot(As, Bs, (n_tiles + 1) % 2, ty, tx)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("08-3", W, "one_step_too_many", {"double"}, '''
def my_pipeline_totals(L, C, N):
    return N * (L + C), (N + 1) * max(L, C)
'''),
    ("08-3", W, "asks_the_model", {"uses_model"}, '''
from sim import pipeline as pl

def my_pipeline_totals(L, C, N):
    return pl.schedule(N, L, C, 1).total, pl.schedule(N, L, C, 2).total
'''),
    ("08-3", W, "single_overlaps_too", {"single"}, '''
def my_pipeline_totals(L, C, N):
    return N * max(L, C) + min(L, C), L + C + (N - 1) * max(L, C)
'''),
    ("08-3", R, "max_then_min", {"pass"}, '''
def my_pipeline_totals(L, C, N):
    slow, fast = max(L, C), min(L, C)
    return (L + C) * N, slow * N + fast
'''),
    # ---------------------------------------------------------------- 09
    ("09-1", W, "wait_skipped_on_the_first_tile", {"wait_skipped"}, '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    for kt in range(n_tiles):
        if kt > 0:
            ptx.cp_async_wait_group_1()
        cuda.syncthreads()
        if kt + 2 < n_tiles:
            issue_tile(A, B, As, Bs, (kt + 2) % S3, kt + 2)
        ptx.cp_async_commit_group()
        acc = compute_tile(As, Bs, kt % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("09-1", W, "double_buffer_distance", {"prefetch_distance"}, '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    for kt in range(n_tiles):
        ptx.cp_async_wait_group_1()
        cuda.syncthreads()
        if kt + 1 < n_tiles:
            issue_tile(A, B, As, Bs, (kt + 1) % S3, kt + 1)
        ptx.cp_async_commit_group()
        acc = compute_tile(As, Bs, kt % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("09-1", W, "compute_first", {"compute_before_wait"}, '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    for kt in range(n_tiles):
        acc = compute_tile(As, Bs, kt % S3, acc)
        ptx.cp_async_wait_group_1()
        cuda.syncthreads()
        if kt + 2 < n_tiles:
            issue_tile(A, B, As, Bs, (kt + 2) % S3, kt + 2)
        ptx.cp_async_commit_group()
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("09-1", W, "waits_for_everything", {"no_overlap"}, '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    for kt in range(n_tiles):
        ptx.cp_async_wait_all()
        cuda.syncthreads()
        if kt + 2 < n_tiles:
            issue_tile(A, B, As, Bs, (kt + 2) % S3, kt + 2)
        ptx.cp_async_commit_group()
        acc = compute_tile(As, Bs, kt % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("09-1", R, "stage_variables", {"pass"}, '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    for kt in range(n_tiles):
        ptx.cp_async_wait_group_1()        # everything but the newest group: tile kt is here
        cuda.syncthreads()
        ahead = kt + S3 - 1
        if ahead < n_tiles:
            issue_tile(A, B, As, Bs, ahead % S3, ahead)
        ptx.cp_async_commit_group()
        here = kt % S3
        acc = compute_tile(As, Bs, here, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("09-2", W, "k_offset_from_stage", {"stage_for_tile"}, '''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    a_row, a_col = tid // 2, (tid % 2) * 4
    ptx.cp_async_cg_16(As, stage, a_row, a_col, A, block_row + a_row, stage * BK + a_col)
    b_row, b_col = tid // 8, (tid % 8) * 4
    ptx.cp_async_cg_16(Bs, stage, b_row, b_col, B, stage * BK + b_row, block_col + b_col)
'''),
    ("09-2", W, "one_map_for_both", {"overlap", "out_of_bounds", "holes"}, '''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    r, c = tid // (BN // VEC), (tid % (BN // VEC)) * VEC
    ptx.cp_async_cg_16(As, stage, r, c % BK, A, block_row + r, kt * BK + c % BK)
    ptx.cp_async_cg_16(Bs, stage, r, c, B, kt * BK + r, block_col + c)
'''),
    ("09-2", W, "float4_index_as_column", {"misaligned"}, '''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    a_row, a_col = tid // 2, tid % 2
    b_row, b_col = tid // 8, tid % 8
    ptx.cp_async_cg_16(As, stage, a_row, a_col * VEC, A, block_row + a_row, kt * BK + a_col * VEC)
    ptx.cp_async_cg_16(Bs, stage, b_row, b_col, B, kt * BK + b_row, block_col + b_col)
'''),
    ("09-2", R, "globals_then_locals", {"pass"}, '''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    k_base = kt * BK
    for which in range(2):
        if which == 0:
            per_row = BK // VEC
            r, c = tid // per_row, tid % per_row * VEC
            ptx.cp_async_cg_16(As, stage, r, c, A, block_row + r, k_base + c)
        else:
            per_row = BN // VEC
            r, c = tid // per_row, tid % per_row * VEC
            ptx.cp_async_cg_16(Bs, stage, r, c, B, k_base + r, block_col + c)
'''),
    ("09-3", W, "count_not_clamped", {"negative_size", "size_too_large"}, '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    n = cols - gcol
    if grow >= rows:
        n = 0
    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow if n > 0 else 0, gcol if n > 0 else 0, 4 * n)
'''),
    ("09-3", W, "size_in_floats", {"src_size_units"}, '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    n = min(4, cols - gcol) if grow < rows and gcol < cols else 0
    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow if n else 0, gcol if n else 0, n)
'''),
    ("09-3", W, "edge_from_the_array", {"edge_overread"}, '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    n = min(4, X.shape[1] - gcol) if grow < X.shape[0] and gcol < X.shape[1] else 0
    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow if n else 0, gcol if n else 0, 4 * n)
'''),
    ("09-3", R, "four_cases", {"pass"}, '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    left = cols - gcol
    if grow < rows and left >= 4:
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow, gcol, 16)
    elif grow < rows and left > 0:
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow, gcol, 4 * left)
    else:
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, 0, 0, 0)
'''),
    # ---------------------------------------------------------------- 10
    ("10-1", W, "rows_before_columns", {"register_order"}, '''
def my_c_elements(lane):
    g, t = lane >> 2, lane % 4
    return [(g + 8 * i, 2 * t + j) for j in range(2) for i in range(2)]
'''),
    ("10-1", W, "asks_the_model", {"uses_model"}, '''
from sim import mma

def my_c_elements(lane):
    return [tuple(e) for e in mma.c_elements(lane)]
'''),
    ("10-1", W, "groups_of_eight", {"lane_groups", "out_of_range"}, '''
def my_c_elements(lane):
    g, t = lane % 8, lane // 8
    return [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]
'''),
    ("10-1", R, "own_helper_named_owner", {"pass"}, '''
def owner(lane):
    return lane // 4, lane % 4          # my helper: (groupID, threadID_in_group)

def my_c_elements(lane):
    g, t = owner(lane)
    return [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]
'''),
    ("10-2", W, "columns_before_rows", {"register_order"}, '''
def my_a_elements(lane):
    g, t = lane >> 2, lane % 4
    out = []
    for reg in range(4):
        out += [(g + 8 * (reg // 2), 2 * t + 8 * (reg % 2)), (g + 8 * (reg // 2), 2 * t + 8 * (reg % 2) + 1)]
    return out
'''),
    ("10-2", W, "pairs_down_a_column", {"half_axis", "coverage"}, '''
def my_a_elements(lane):
    g, t = lane >> 2, lane % 4
    out = []
    for reg in range(4):
        r, c = g + 8 * (reg % 2), 2 * t + 8 * (reg // 2)
        out += [(r, c), (r + 1, c)]
    return out
'''),
    ("10-2", R, "table_of_offsets", {"pass"}, '''
OFFSETS = [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]

def my_a_elements(lane):
    g, t = lane // 4, lane - 4 * (lane // 4)
    return [(g + dr, 2 * t + dc) for dr, dc in OFFSETS]
'''),
    ("10-3", W, "row_major_thinking", {"transposed"}, '''
def my_b_elements(lane):
    g, t = lane >> 2, lane % 4
    return [(g, 2 * t), (g, 2 * t + 1), (g, 2 * t + 8), (g, 2 * t + 9)]
'''),
    ("10-3", W, "model_alias", {"uses_model"}, '''
from sim.mma import b_elements as reference_b

def my_b_elements(lane):
    return list(reference_b(lane))
'''),
    ("10-3", R, "k_list", {"pass"}, '''
def my_b_elements(lane):
    ks = [2 * (lane % 4) + d for d in (0, 1)]
    ks += [k + 8 for k in ks]
    return [(k, lane // 4) for k in ks]
'''),
    ("10-4", W, "a_halves_in_copy_order", {"a_register_order", "a_rows"}, '''
def my_ldsm_rows(lane):
    j, r = lane // 8, lane % 8
    a = (r + 8 * (j // 2), 8 * (j % 2))
    return a, (lane % 16, 0)
'''),
    ("10-4", W, "b_second_half_at_column_8", {"out_of_range", "b_rows"}, '''
def my_ldsm_rows(lane):
    a = (lane % 16, 8 * (lane // 16))
    b = (lane % 8, 8 * ((lane // 8) % 2))
    return a, b
'''),
    ("10-4", R, "list_lookup", {"pass"}, '''
A_ADDR = [(r, 0) for r in range(16)] + [(r, 8) for r in range(16)]

def my_ldsm_rows(lane):
    return A_ADDR[lane], (lane % 16, 0)
'''),
    ("10-5", W, "fresh_accumulator_each_step", {"acc_reset"}, '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)
        cuda.syncthreads()
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
        d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, float32(0.0), float32(0.0), float32(0.0),
                                              float32(0.0))
        c0, c1, c2, c3 = d0, d1, d2, d3
        cuda.syncthreads()
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    ("10-5", W, "no_barrier_before_next_copy", {"race"}, '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)
        cuda.syncthreads()
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    ("10-5", W, "b_read_without_trans", {"b_not_transposed"}, '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)
        cuda.syncthreads()
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2(Bs, lane % 16, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
        cuda.syncthreads()
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    ("10-5", R, "barrier_right_after_ldmatrix", {"pass"}, '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    half, r = lane // 16, lane % 16
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)
        cuda.syncthreads()            # every lane's copy is in shared memory
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, r, 8 * half)
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, r, 0)
        cuda.syncthreads()            # everyone has its fragments: the next copy may overwrite As/Bs
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    # ---------------------------------------------------------------- 11
    ("11-1", W, "warp_from_t_mod_4", {"rows"}, """
def acc_element(t, i):
    warp = t % 4                     # four warps, so t % 4 (a mistake: the warp is t // 32)
    lane = t % 32
    row = warp * 16 + lane // 4 + (8 if i % 4 >= 2 else 0)
    col = (i // 4) * 8 + (lane % 4) * 2 + i % 2
    return row, col
"""),
    ("11-1", W, "inverse_search_wrong_register", {"register_order"}, """
def acc_element(t, i):
    for row in range(64):
        for col in range(64):
            w, r = divmod(row, 16)
            lane = 4 * (r % 8) + (col % 8) // 2
            reg = 4 * (col // 8) + (r // 8) + 2 * (col % 2)      # the two halves of a group of four swapped
            if 32 * w + lane == t and reg == i:
                return row, col
"""),
    ("11-1", W, "numpy_xy_order", {"transposed"}, """
import numpy as np

def acc_element(t, i):
    y = 16 * (t // 32) + (t % 32) // 4 + 8 * ((i // 2) % 2)
    x = 8 * (i // 4) + 2 * (t % 4) + i % 2
    return np.array([x, y])          # (x, y) as in a picture
"""),
    ("11-1", W, "helper_splits_lane_backwards", {"lane_groups"}, """
def split(lane):
    return lane % 4, lane // 4       # (group, index in the group)?

def acc_element(t, i):
    g, q = split(t % 32)
    return 16 * (t // 32) + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1)
"""),
    ("11-1", R, "inverse_search", {"pass"}, """
def acc_element(t, i):
    for row in range(64):
        for col in range(64):
            w, r = divmod(row, 16)
            lane = 4 * (r % 8) + (col % 8) // 2
            reg = 4 * (col // 8) + 2 * (r // 8) + col % 2
            if 32 * w + lane == t and reg == i:
                return row, col
"""),
    ("11-1", R, "own_helper_named_like_the_model", {"pass"}, """
def accumulator_elements(t, n):
    w, lane = divmod(t, 32)
    return [(16 * w + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2) for i in range(n // 2)]

def acc_element(t, i):
    return accumulator_elements(t, 64)[i]
"""),
    ("11-2", W, "mode_2_is_bigger", {"swizzle_mode"}, """
def b_descriptor(addr, kk, BK):
    start = (addr + kk * 2048) >> 4
    return start | ((BK * 128) >> 4) << 16 | (1024 >> 4) << 32 | 2 << 62     # 2 for the largest swizzle?
"""),
    ("11-2", W, "lbo_is_box_width", {"lbo"}, """
def b_descriptor(addr, kk, BK):
    enc = lambda x: (x & 0x3FFFF) >> 4
    lbo = 64 * 2                      # one box is 64 f16 wide
    sbo = BK * 128
    return enc(addr + kk * 2048) | enc(lbo) << 16 | enc(sbo) << 32 | 1 << 62
"""),
    ("11-2", W, "fields_in_bytes", {"not_shifted"}, """
def b_descriptor(addr, kk, BK):
    start, lbo, sbo = addr + kk * 2048, BK * 128, 1024
    return start | lbo << 16 | sbo << 32 | 1 << 62
"""),
    ("11-2", W, "k_step_in_elements", {"k_step"}, """
def b_descriptor(addr, kk, BK):
    row_elems = 64
    start = addr + kk * 16 * row_elems      # 16 rows further (in elements, not bytes)
    return ((start & 0x3FFFF) >> 4) | (((BK * 128) & 0x3FFFF) >> 4) << 16 | (1024 >> 4) << 32 | 1 << 62
"""),
    ("11-2", R, "bit_string", {"pass"}, """
def b_descriptor(addr, kk, BK):
    bits = ["0"] * 64
    def put(lo, width, value):
        for b in range(width):
            bits[63 - (lo + b)] = str((value >> b) & 1)
    put(0, 14, (addr + kk * 2048) >> 4)
    put(16, 14, (BK * 128) >> 4)
    put(32, 14, 1024 >> 4)
    put(62, 2, 1)
    return int("".join(bits), 2)
"""),
    ("11-2", R, "dict_of_fields", {"pass"}, """
FIELD_SHIFT = {"start": 0, "lbo": 16, "sbo": 32}

def b_descriptor(addr, kk, BK):
    nbytes = {"start": addr + 2 * 1024 * kk, "lbo": 128 * BK, "sbo": 8 * 128}
    desc = sum(((v % 262144) // 16) << FIELD_SHIFT[k] for k, v in nbytes.items())
    return desc + 2 ** 62
"""),
    ("11-3", W, "parity_from_stage", {"consumer_parity"}, """
def ring_phase(it, stages):
    s = it % stages
    p = s & 1
    return s, p, 1 - p
"""),
    ("11-3", W, "producer_follows_previous_iteration", {"producer_parity"}, """
def ring_phase(it, stages):
    s = it % stages
    full = (it // stages) % 2
    empty = ((it - 1) // stages) % 2        # the consumer of the previous k-iteration
    return s, full, empty
"""),
    ("11-3", W, "stages_counted_from_one", {"stage"}, """
def ring_phase(it, stages):
    s = it % stages + 1
    p = (it // stages) & 1
    return s, p, p ^ 1
"""),
    ("11-3", W, "bitwise_not", {"parity_range"}, """
def ring_phase(it, stages):
    p = (it // stages) & 1
    return it % stages, p, ~p
"""),
    ("11-3", R, "one_round_behind", {"pass"}, """
def ring_phase(it, stages):
    return it % stages, (it // stages) & 1, ((it - stages) // stages) & 1
"""),
    ("11-3", R, "subtract_laps", {"pass"}, """
def ring_phase(it, stages):
    laps = it // stages
    p = laps % 2
    return it - stages * laps, p, p ^ 1
"""),
    ("11-4", W, "release_first_thing", {"release_before_wait"}, """
def consumer_step(ring, it, kt):
    s = it % ring.stages
    parity = (it // ring.stages) & 1
    if kt > 0:
        ring.release((it - 1) % ring.stages)      # the previous one is done by now?
    ring.wait_full(s, parity)
    ring.mma(s)
    ring.commit()
    ring.wait_mma(1)
"""),
    ("11-4", W, "release_own_stage_after_waiting_all", {"double_release"}, """
def consumer_step(ring, it, kt):
    s = it % ring.stages
    ring.wait_full(s, (it // ring.stages) & 1)
    ring.mma(s)
    ring.commit()
    ring.wait_mma(0)
    ring.release(s)
"""),
    ("11-4", W, "commit_after_wait", {"wait_before_commit"}, """
def consumer_step(ring, it, kt):
    s = it % ring.stages
    parity = (it // ring.stages) & 1
    ring.wait_full(s, parity)
    ring.mma(s)
    ring.wait_mma(1)
    ring.commit()
    if kt > 0:
        ring.release((it - 1) % ring.stages)
"""),
    ("11-4", W, "parity_from_kt", {"parity"}, """
def consumer_step(ring, it, kt):
    s = it % ring.stages
    ring.wait_full(s, (kt // ring.stages) & 1)
    ring.mma(s)
    ring.commit()
    ring.wait_mma(1)
    if kt > 0:
        ring.release((it - 1) % ring.stages)
"""),
    ("11-4", W, "four_wgmma_per_stage", {"double_mma"}, """
def consumer_step(ring, it, kt):
    s = it % ring.stages
    ring.wait_full(s, (it // ring.stages) & 1)
    for k16 in range(4):                      # k = 0, 16, 32, 48
        ring.mma(s)
    ring.commit()
    ring.wait_mma(1)
    if kt > 0:
        ring.release((it - 1) % ring.stages)
"""),
    ("11-4", R, "previous_by_adding_stages", {"pass"}, """
def consumer_step(ring, it, kt):
    n = ring.stages
    s = it % n
    ring.wait_full(s, (it // n) & 1)
    ring.mma(s)
    ring.commit()
    ring.wait_mma(1)
    if kt >= 1:
        ring.release((it + n - 1) % n)
"""),
    ("11-4", R, "remembers_previous_stage", {"pass"}, """
def consumer_step(ring, it, kt):
    s = it % ring.stages
    parity = (it // ring.stages) & 1
    previous = None if kt == 0 else (s - 1) % ring.stages
    ring.wait_full(s, parity)
    ring.mma(s)
    ring.commit()
    ring.wait_mma(1)
    if previous is not None:
        ring.release(previous)
"""),
]


def _run_kernel_session(nb, subs, timeout=600):
    """Run the submissions of one notebook in one Jupyter kernel; yields (submission, code, text, hint2)."""
    from jupyter_client.manager import start_new_kernel
    from course.exercises import core
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT / "notebooks"))
    try:
        def run(code):
            msg_id = kc.execute(code)
            out = []
            while True:
                try:
                    msg = kc.get_iopub_msg(timeout=timeout)
                except queue.Empty:
                    return "(timeout)"
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                t, c = msg["msg_type"], msg["content"]
                if t == "stream":
                    out.append(c["text"])
                elif t in ("execute_result", "display_data"):
                    out.append(c["data"].get("text/plain", ""))
                elif t == "error":
                    out.append("\n".join(c["traceback"]))
                elif t == "status" and c["execution_state"] == "idle":
                    return "".join(out)
        run("import kernels_numba\nfrom course.exercises import check, hint")
        for sub in subs:
            ex_id, kind, label, expect, cell = sub
            ex = core.get(ex_id)
            if ex.preamble:
                run(ex.preamble)
            run(cell.strip("\n"))
            text = run(f"_r = check({ex_id!r}, {ex.name})\nprint('@@CODE@@' + _r.code)\nprint(_r)")
            code = text.split("@@CODE@@", 1)[1].split("\n", 1)[0] if "@@CODE@@" in text else "(no result)"
            body = text.split("\n", 1)[1] if "@@CODE@@" in text else text
            hint2 = run(f"hint({ex_id!r}, 2)") if code != "pass" else ""
            yield sub, code, body.strip(), hint2.strip()
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="*", help="only these notebooks (06 … 11); all when none is given")
    ap.add_argument("--json")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from course import chapters      # after the path insert: the script runs from any folder
    rows = []
    t0 = time.time()
    for nb in args.notebooks or chapters.numbers():          # course/chapters.py
        subs = [s for s in SUBMISSIONS if s[0].startswith(nb)]
        for (ex_id, kind, label, expect, _), code, text, hint2 in _run_kernel_session(nb, subs):
            from sim.korean import wrong_particles
            bad_particles = wrong_particles(text.split("공유 메모리 경쟁")[0]) + wrong_particles(hint2)
            if bad_particles:
                print(f"    PARTICLE {bad_particles}")
            ok = code in expect
            rows.append({"exercise": ex_id, "submission": label, "kind": kind, "verdict": code, "expected":
                         sorted(expect), "as_expected": ok, "message": text, "hint2": hint2})
            print(f"{ex_id} {kind:5s} {label:34s} {code:22s} {'✓' if ok else '✗ expected ' + '/'.join(sorted(expect))}",
                  flush=True)
            if args.verbose or not ok:
                print("    " + text.replace("\n", "\n    ")[:3000])
                if hint2:
                    print("    " + hint2[:600])
    wrong = [r for r in rows if r["kind"] == W]
    right = [r for r in rows if r["kind"] == R]
    print()
    print("| 연습 | 제출 | 정답/오답 | 판정 | 기대한 진단 | 맞음 |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['exercise']} | {r['submission']} | {'오답' if r['kind'] == W else '정답'} | `{r['verdict']}` | "
              f"{' / '.join(r['expected'])} | {'✓' if r['as_expected'] else '✗'} |")
    passed_wrong = [r for r in wrong if r["verdict"] == "pass"]
    failed_right = [r for r in right if r["verdict"] != "pass"]
    print(f"\n오답 {len(wrong)}개 중 PASS {len(passed_wrong)}개, 정답 {len(right)}개 중 실패 {len(failed_right)}개; "
          f"진단이 기대와 같음 {sum(r['as_expected'] for r in wrong)}/{len(wrong)}; {time.time() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    return 1 if passed_wrong or failed_right else 0


if __name__ == "__main__":
    sys.exit(main())
