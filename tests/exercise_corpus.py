"""Right answers to every exercise, written the way different students would (loop order, names, equivalent index
formulas, helper functions of their own, other library calls): each is a notebook cell that follows the exercise's
preamble cell and defines the function the check cell passes. Not one of them may fail (tests/test_mutants.py).

CORPUS = {exercise id: [(style, cell source), ...]}
"""
CORPUS = {}

CORPUS["06-1"] = [
    ("loops_and_helper", '''
def worst(report_list):
    w = 0
    for rep in report_list:
        if rep.wavefronts > w:
            w = rep.wavefronts
    return w

def my_conflict_free_pads(max_pad=4):
    good = []
    for p in range(0, max_pad + 1):
        lay = banks.Layout((16, 16), pad=p)
        st = banks.analyze(lay, lambda x, y, z: (y, x), (16, 16), kind="store")
        ld = banks.analyze(lay, lambda x, y, z: (y, 0), (16, 16), kind="load")
        if worst(st) == 1 and worst(ld) == 1:
            good.append(p)
    return good
'''),
    ("all_and_filter", '''
def _store(x, y, z):
    return (y, x)

def _load(x, y, z):
    return (y, 0)

def my_conflict_free_pads(max_pad=4):
    def clean(p):
        layout = banks.Layout((16, 16), pad=p)
        return all(r.wavefronts == 1 for r in banks.analyze(layout, _store, (16, 16), kind="store")) and \\
            all(r.wavefronts == 1 for r in banks.analyze(layout, _load, (16, 16), kind="load"))
    return list(filter(clean, range(max_pad + 1)))
'''),
    ("while_and_tuple", '''
def my_conflict_free_pads(max_pad=4):
    """store As[ty][tx], load As[ty][0]: both one wavefront per warp."""
    result, p = [], 0
    while p <= max_pad:
        layout = banks.Layout((16, 16), pad=p)
        counts = (max(r.wavefronts for r in banks.analyze(layout, lambda x, y, z: (y, x), (16, 16), kind="store")),
                  max(r.wavefronts for r in banks.analyze(layout, lambda x, y, z: (y, 0), (16, 16), kind="load")))
        if counts == (1, 1):
            result += [p]
        p += 1
    return tuple(result)
'''),
]

CORPUS["06-2"] = [
    ("inline_bounds_own_index", '''
@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * T8 + ty
    col = cuda.blockIdx.x * T8 + tx
    M, K = A.shape
    N = B.shape[1]
    acc = float32(0.0)
    for k0 in range(0, K, T8):
        a_col = k0 + tx
        b_row = k0 + ty
        As[ty, tx] = A[row, a_col] if row < M and a_col < K else float32(0.0)
        Bs[ty, tx] = B[b_row, col] if b_row < K and col < N else float32(0.0)
        cuda.syncthreads()      # every element of this tile is stored before anyone reads it
        for kk in range(T8):
            acc += As[ty, kk] * Bs[kk, tx]
        cuda.syncthreads()      # nobody overwrites the tile while another thread still reads it
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("helpers_count_tiles", '''
@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    t = 0
    while t < n_tiles:
        Bs[ty, tx] = load_or_zero(B, ty + T8 * t, col)
        As[ty, tx] = load_or_zero(A, row, tx + T8 * t)
        cuda.syncthreads()   # RAW: wait until the whole tile is in shared memory
        k = 0
        while k < T8:
            acc = acc + As[ty, k] * Bs[k, tx]
            k += 1
        cuda.syncthreads()   # WAR: the next tile's stores must wait until this one was read
        t += 1
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("temporaries", '''
@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    for tile in range((A.shape[1] + T8 - 1) // T8):
        base = tile * T8
        a_val = load_or_zero(A, row, base + tx)
        b_val = load_or_zero(B, base + ty, col)
        As[ty, tx] = a_val
        Bs[ty, tx] = b_val
        cuda.syncthreads()  # the tile is complete
        part = float32(0.0)
        for k in range(T8):
            part += As[ty, k] * Bs[k, tx]
        acc += part
        cuda.syncthreads()  # the tile may be overwritten
    store_c(C, row, col, acc, alpha, beta)
'''),
]

CORPUS["06-3"] = [
    ("early_return", '''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    if r >= X.shape[0] or c >= X.shape[1]:
        return float32(0.0)     # outside: adds nothing to the sum
    return X[r, c]
'''),
    ("one_exit", '''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    rows, cols = X.shape
    v = float32(0.0)
    if r < rows:
        if c < cols:
            v = X[r, c]
    return v
'''),
    ("conditional_expression", '''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    inside = (r < X.shape[0]) and (c < X.shape[1])
    return X[r, c] if inside else float32(0.0)
'''),
]

CORPUS["07-1"] = [
    ("direct", '''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    return ty * TM, tx * TN
'''),
    ("linear_tid", '''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    tid = ty * BLOCK[0] + tx            # linear thread number
    return (tid // BLOCK[0]) * TM, (tid % BLOCK[0]) * TN
'''),
    ("from_tile_sizes", '''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    rows_per_thread = BM // BLOCK[1]    # = TM
    cols_per_thread = BN // BLOCK[0]    # = TN
    first_row = rows_per_thread * ty
    first_col = cols_per_thread * tx
    return first_row, first_col
'''),
]

CORPUS["07-2"] = [
    ("pass_first", '''
@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    per_pass = THREADS // cols
    r = p * per_pass + tid // cols
    c = tid - (tid // cols) * cols
    return r, c
'''),
    ("own_device_helper_named_load_map", '''
@cuda.jit(device=True)
def load_map(tid, cols):
    return tid // cols, tid % cols          # my own helper (a device function), not the notebook's L7.load_map

@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    # comment mentioning lesson07 and L7.load_map must not matter
    r0, c = load_map(tid, cols)
    return r0 + p * (THREADS // cols), c
'''),
    ("passes_interleaved", '''
@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    rows_per_pass = THREADS // cols
    passes = rows // rows_per_pass
    return (tid // cols) * passes + p, tid % cols     # each thread takes neighbouring rows; a warp still reads rows whole
'''),
]

CORPUS["07-3"] = [
    ("n_before_m", '''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    for k in range(BK):
        for j in range(TN):
            rB[j] = Bs[k, thread_col + j]
        for i in range(TM):
            rA[i] = As[thread_row + i, k]
        for j in range(TN):
            for i in range(TM):
                rC[i, j] += rA[i] * rB[j]
'''),
    ("one_load_loop", '''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    for k in range(BK):
        for i in range(TM):                   # TN <= TM here: one loop fills both registers
            rA[i] = As[thread_row + i, k]
            if i < TN:
                rB[i] = Bs[k, thread_col + i]
        for i in range(TM):
            a = rA[i]
            for j in range(TN):
                rC[i, j] = rC[i, j] + a * rB[j]
'''),
    ("k_counting_down", '''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    k = BK - 1
    while k >= 0:
        for m in range(TM):
            rA[m] = As[thread_row + m, k]
        for n in range(TN):
            rB[n] = Bs[k, thread_col + n]
        for m in range(TM):
            for n in range(TN):
                rC[m, n] += rA[m] * rB[n]
        k -= 1
'''),
]

CORPUS["07-4"] = [
    ("math_ceil", '''
import math

def my_register_limited_blocks(regs, threads):
    warps = math.ceil(threads / 32)
    regs_per_warp = math.ceil(regs * 32 / 256) * 256
    if regs_per_warp * math.ceil(warps / 4) * 4 > 65536:
        return 0
    warps_per_sm = (16384 // regs_per_warp) * 4
    return warps_per_sm // warps
'''),
    ("count_warps_that_fit", '''
def my_register_limited_blocks(regs, threads):
    per_thread = (regs + 7) // 8 * 8              # per-thread count rounded up to 8 = per-warp rounded up to 256
    per_warp = per_thread * 32
    fit = 0
    for part in range(4):                        # four sub-partitions of 16384 registers
        fit += 16384 // per_warp
    warps_in_block = (threads + 31) // 32
    return fit // warps_in_block
'''),
    ("divmod_style", '''
def my_register_limited_blocks(regs, threads):
    q, r = divmod(threads, 32)
    warps = q + (1 if r else 0)
    units, rest = divmod(regs * 32, 256)
    per_warp = 256 * (units + (rest > 0))
    return int(4 * (16384 // per_warp) // warps)
'''),
]

CORPUS["08-1"] = [
    ("comprehension", '''
def my_stage_table(n_tiles, stages):
    return [(kt, kt % stages,
             kt + stages - 1 if kt + stages - 1 < n_tiles else None,
             (kt + stages - 1) % stages if kt + stages - 1 < n_tiles else None) for kt in range(n_tiles)]
'''),
    ("simulate_buffers", '''
def my_stage_table(n_tiles, stages):
    holds = {b: b for b in range(min(stages - 1, n_tiles))}      # buffer -> tile, after the prologue
    next_tile = stages - 1
    rows = []
    for kt in range(n_tiles):
        cur = [b for b, t in holds.items() if t == kt][0]
        if next_tile < n_tiles:
            free = [b for b in range(stages) if b not in holds or holds[b] < kt]
            buf = free[0]
            holds[buf] = next_tile
            rows.append((kt, cur, next_tile, buf))
            next_tile += 1
        else:
            rows.append((kt, cur, None, None))
    return rows
'''),
    ("ring_pointer", '''
def my_stage_table(n_tiles, stages):
    out = []
    compute_buf = 0
    load_buf = stages - 1
    for kt in range(n_tiles):
        tile = kt + (stages - 1)
        if tile >= n_tiles:
            out.append([kt, compute_buf, None, None])
        else:
            out.append([kt, compute_buf, tile, load_buf])
        compute_buf = (compute_buf + 1) % stages
        load_buf = (load_buf + 1) % stages
    return out
'''),
]

CORPUS["08-2"] = [
    ("named_buffers", '''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)      # [버퍼][행][k]
    Bs = cuda.shared.array((2, T8, T8), float32)      # [버퍼][k][열]
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    for kt in range(n_tiles - 1):
        nxt = kt + 1
        cur, other = kt % 2, nxt % 2
        a_next = load_or_zero(A, row, nxt * T8 + tx)
        b_next = load_or_zero(B, nxt * T8 + ty, col)
        acc += tile_dot(As, Bs, cur, ty, tx)
        As[other, ty, tx] = a_next
        Bs[other, ty, tx] = b_next
        cuda.syncthreads()      # RAW for the next iteration and WAR for this buffer, both at once
    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("flip_variable", '''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)
    Bs = cuda.shared.array((2, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    buf = 0
    for kt in range(n_tiles - 1):
        k_next = (kt + 1) * T8
        ra = load_or_zero(A, row, k_next + tx)
        rb = load_or_zero(B, k_next + ty, col)
        acc += tile_dot(As, Bs, buf, ty, tx)
        buf = 1 - buf
        As[buf, ty, tx] = ra
        Bs[buf, ty, tx] = rb
        cuda.syncthreads()
    acc += tile_dot(As, Bs, buf, ty, tx)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("inline_loads_and_dot", '''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)
    Bs = cuda.shared.array((2, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    M, K, N = A.shape[0], A.shape[1], B.shape[1]
    As[0, ty, tx] = load_or_zero(A, row, tx)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    for kt in range(n_tiles - 1):
        c = (kt + 1) * T8 + tx
        r = (kt + 1) * T8 + ty
        a = A[row, c] if row < M and c < K else float32(0.0)
        b = B[r, col] if r < K and col < N else float32(0.0)
        s = kt % 2
        for k in range(T8):
            acc += As[s, ty, k] * Bs[s, k, tx]
        As[1 - s, ty, tx] = a
        Bs[1 - s, ty, tx] = b
        cuda.syncthreads()
    last = (n_tiles - 1) % 2
    for k in range(T8):
        acc += As[last, ty, k] * Bs[last, k, tx]
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("barrier_at_the_top", '''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)
    Bs = cuda.shared.array((2, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    for kt in range(n_tiles - 1):
        cuda.syncthreads()      # tile kt is stored (RAW), and buffer (kt + 1) % 2 was read in kt - 1 (WAR)
        a = load_or_zero(A, row, (kt + 1) * T8 + tx)
        b = load_or_zero(B, (kt + 1) * T8 + ty, col)
        acc += tile_dot(As, Bs, kt % 2, ty, tx)
        As[(kt + 1) % 2, ty, tx] = a
        Bs[(kt + 1) % 2, ty, tx] = b
    cuda.syncthreads()          # the last tile is stored before the epilogue reads it
    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)
    store_c(C, row, col, acc, alpha, beta)
'''),
]

CORPUS["08-3"] = [
    ("if_else", '''
def my_pipeline_totals(L, C, N):
    single = N * L + N * C
    if L >= C:
        double = N * L + C
    else:
        double = L + N * C
    return single, double
'''),
    ("simulate_timeline", '''
def my_pipeline_totals(L, C, N):
    single = 0
    for _ in range(N):
        single += L + C
    load_done = [0] * N
    comp_done = [0] * N
    for i in range(N):
        start = load_done[i - 1] if i else 0          # one load unit
        if i >= 2:
            start = max(start, comp_done[i - 2])      # two buffers: tile i reuses the buffer of tile i - 2
        load_done[i] = start + L
        comp_done[i] = max(load_done[i], comp_done[i - 1] if i else 0) + C
    return single, comp_done[-1]
'''),
    ("own_helper_named_double_schedule", '''
def double_schedule(L, C, N):
    """my own helper: the double-buffer total (not the pipeline model)."""
    return L + C + (N - 1) * max(L, C)

def my_pipeline_totals(L, C, N):
    return N * (L + C), double_schedule(L, C, N)
'''),
]

CORPUS["09-1"] = [
    ("named_next_tile", '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    for t in range(n_tiles):
        ptx.cp_async_wait_group_1()     # groups committed: 2 + t; tile t's group is the (t+1)-th: one may stay pending
        cuda.syncthreads()              # everyone's copies of tile t landed; buffer (t - 1) % 3 is free
        nxt = t + 2
        if nxt < n_tiles:
            issue_tile(A, B, As, Bs, nxt % S3, nxt)
        ptx.cp_async_commit_group()     # always, also empty: one group per iteration
        acc = compute_tile(As, Bs, t % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("stage_counters", '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    read_stage = 0
    write_stage = 2
    for kt in range(n_tiles):
        ptx.cp_async_wait_group_1()
        cuda.syncthreads()
        if kt + 2 < n_tiles:
            issue_tile(A, B, As, Bs, write_stage, kt + 2)
        ptx.cp_async_commit_group()
        acc = compute_tile(As, Bs, read_stage, acc)
        read_stage = (read_stage + 1) % S3
        write_stage = (write_stage + 1) % S3
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("own_issue_helper", '''
@cuda.jit(device=True)
def prefetch(A, B, As, Bs, tile, n_tiles):
    if tile < n_tiles:
        issue_tile(A, B, As, Bs, tile % S3, tile)
    ptx.cp_async_commit_group()

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
        prefetch(A, B, As, Bs, kt + S3 - 1, n_tiles)
        acc = compute_tile(As, Bs, kt % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
    # review round 18 (W-2): a loop over the K offset, and a while loop that counts up in the middle of its body
    ("k_offset_loop", '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    for k0 in range(0, n_tiles * T8, T8):
        ptx.cp_async_wait_group_1()
        cuda.syncthreads()
        if k0 + 2 * T8 < n_tiles * T8:
            issue_tile(A, B, As, Bs, (k0 // T8 + 2) % S3, k0 // T8 + 2)
        ptx.cp_async_commit_group()
        acc = compute_tile(As, Bs, (k0 // T8) % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
    ("while_counting_mid_body", '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    kt = 0
    while kt < n_tiles:
        ptx.cp_async_wait_group_1()
        cuda.syncthreads()
        if kt + 2 < n_tiles:
            issue_tile(A, B, As, Bs, (kt + 2) % S3, kt + 2)
        ptx.cp_async_commit_group()
        kt += 1
        acc = compute_tile(As, Bs, (kt - 1) % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
]

CORPUS["09-1"] += [
    # review round 25 (B-5): the sync_prefetch verdict looks for data stored through registers; a thread's own 4-byte
    # cp.async copies with the out-of-matrix element zeroed by a plain store of 0 are the technique
    ("own_copies_zero_by_store", '''
@cuda.jit(device=True)
def fetch(A, B, As, Bs, stage, t):
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    r, c = cuda.blockIdx.y * T8 + ty, t * T8 + tx
    if r < A.shape[0] and c < A.shape[1]:
        ptx.cp_async_ca_4(As, stage, ty, tx, A, r, c)
    else:
        As[stage, ty, tx] = float32(0.0)
    r, c = t * T8 + ty, cuda.blockIdx.x * T8 + tx
    if r < B.shape[0] and c < B.shape[1]:
        ptx.cp_async_ca_4(Bs, stage, ty, tx, B, r, c)
    else:
        Bs[stage, ty, tx] = float32(0.0)

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
        if kt + 2 < n_tiles:
            fetch(A, B, As, Bs, (kt + 2) % S3, kt + 2)
        ptx.cp_async_commit_group()
        acc = compute_tile(As, Bs, kt % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
    # the answers of the round 25 student test (scratch25/answers/09-1/R_*): a peeled last tile, continue in the tail
    ("peeled_last_tile", '''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)
    acc = float32(0.0)
    for kt in range(n_tiles - 1):
        ptx.cp_async_wait_group_1()
        cuda.syncthreads()
        nxt = kt + 2
        if nxt < n_tiles:
            issue_tile(A, B, As, Bs, nxt % S3, nxt)
        ptx.cp_async_commit_group()
        acc = compute_tile(As, Bs, kt % S3, acc)
    last = n_tiles - 1
    ptx.cp_async_wait_group_0()
    cuda.syncthreads()
    acc = compute_tile(As, Bs, last % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
'''),
]

CORPUS["09-2"] = [
    ("named_counts", '''
A_PER_ROW = BK // VEC        # float4 per row of the A tile (2)
B_PER_ROW = BN // VEC        # float4 per row of the B tile (8)

@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    ar = tid // A_PER_ROW
    ac = VEC * (tid % A_PER_ROW)
    ptx.cp_async_cg_16(As, stage, ar, ac, A, block_row + ar, kt * BK + ac)
    br = tid // B_PER_ROW
    bc = VEC * (tid % B_PER_ROW)
    ptx.cp_async_cg_16(Bs, stage, br, bc, B, kt * BK + br, block_col + bc)
'''),
    ("bit_ops", '''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    k0 = kt * BK
    ptx.cp_async_cg_16(Bs, stage, tid >> 3, (tid & 7) << 2, B, k0 + (tid >> 3), block_col + ((tid & 7) << 2))
    ptx.cp_async_cg_16(As, stage, tid >> 1, (tid & 1) << 2, A, block_row + (tid >> 1), k0 + ((tid & 1) << 2))
'''),
    ("ca_variant_globals_first", '''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    g_row_a = block_row + tid // 2
    g_col_a = kt * BK + (tid % 2) * 4
    ptx.cp_async_ca_16(As, stage, g_row_a - block_row, g_col_a - kt * BK, A, g_row_a, g_col_a)
    g_row_b = kt * BK + tid // 8
    g_col_b = block_col + (tid % 8) * 4
    ptx.cp_async_ca_16(Bs, stage, g_row_b - kt * BK, g_col_b - block_col, B, g_row_b, g_col_b)
'''),
]

CORPUS["09-2"] += [
    # review round 25 (B-6): B walked down its columns: the same 16 full sectors per warp as 6절's mapping
    ("b_column_walk", '''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    ar, ac = tid // 2, (tid % 2) * 4
    ptx.cp_async_cg_16(As, stage, ar, ac, A, block_row + ar, kt * BK + ac)
    br, bc = tid % 8, (tid // 8) * 4
    ptx.cp_async_cg_16(Bs, stage, br, bc, B, kt * BK + br, block_col + bc)
'''),
    ("linear_index_formula", '''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    first = tid * VEC
    a_r, a_c = first // BK, first % BK
    b_r, b_c = first // BN, first % BN
    k0 = kt * BK
    ptx.cp_async_cg_16(As, stage, a_r, a_c, A, block_row + a_r, k0 + a_c)
    ptx.cp_async_cg_16(Bs, stage, b_r, b_c, B, k0 + b_r, block_col + b_c)
'''),
]

CORPUS["09-3"] = [
    ("two_calls", '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    if grow >= rows or gcol >= cols:
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, 0, 0, 0)      # nothing to read: 16 zero bytes
    else:
        inside = cols - gcol
        if inside > 4:
            inside = 4
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow, gcol, inside * 4)
'''),
    ("max_min", '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    n = max(0, min(4, cols - gcol)) if grow < rows else 0
    ok = n > 0
    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow if ok else 0, gcol if ok else 0, 4 * n)
'''),
    ("bytes_directly", '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    nbytes = 0
    r = 0
    c = 0
    if grow < rows and gcol < cols:
        r = grow
        c = gcol
        nbytes = 16 if gcol + 4 <= cols else 4 * (cols - gcol)
    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, nbytes)
'''),
]

CORPUS["09-3"] += [
    # review round 25 (B-2): one 16-byte copy per thread, the plain 16-byte form for a vector wholly inside
    ("plain_16_inside_zfill_edge", '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    if grow < rows and gcol + 4 <= cols:
        ptx.cp_async_cg_16(S, stage, srow, scol, X, grow, gcol)
    elif grow < rows and gcol < cols:
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow, gcol, 4 * (cols - gcol))
    else:
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, 0, 0, 0)
'''),
    # the round 25 student answers (scratch25/answers/09-3/R_*)
    ("clamp_then_fix_address", '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    size = 4 * (cols - gcol)
    if size > 16:
        size = 16
    if size < 0 or grow >= rows:
        size = 0
    r = grow if size > 0 else 0
    c = gcol if size > 0 else 0
    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, size)
'''),
    ("early_return_bytes", '''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    outside = grow >= rows or gcol >= cols
    if outside:
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, 0, 0, 0)
        return
    nbytes = min(16, 4 * (cols - gcol))
    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, grow, gcol, nbytes)
'''),
]

CORPUS["10-1"] = [
    ("comprehension", '''
def my_c_elements(lane):
    g, t = lane >> 2, lane % 4
    return [(g + 8 * (i // 2), 2 * t + i % 2) for i in range(4)]
'''),
    ("divmod", '''
def my_c_elements(lane):
    group, tig = divmod(lane, 4)
    out = []
    for half in (0, 8):
        out.append((group + half, 2 * tig))
        out.append((group + half, 2 * tig + 1))
    return out
'''),
    ("explicit", '''
def my_c_elements(lane):
    row = lane // 4
    col = (lane & 3) * 2
    c0 = (row, col)
    c1 = (row, col + 1)
    c2 = (row + 8, col)
    c3 = (row + 8, col + 1)
    return [c0, c1, c2, c3]
'''),
]

CORPUS["10-2"] = [
    ("explicit_eight", '''
def my_a_elements(lane):
    g, t = lane // 4, lane % 4
    return [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1),
            (g, 2 * t + 8), (g, 2 * t + 9), (g + 8, 2 * t + 8), (g + 8, 2 * t + 9)]
'''),
    ("nested_halves", '''
def my_a_elements(lane):
    g, t = lane >> 2, lane & 3
    out = []
    for col_half in (0, 8):
        for row_half in (0, 8):
            for lo_hi in (0, 1):
                out.append((g + row_half, 2 * t + col_half + lo_hi))
    return out
'''),
    ("index_bits", '''
def my_a_elements(lane):
    g, t = divmod(lane, 4)
    return [(g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)) for i in range(8)]
'''),
]

CORPUS["10-3"] = [
    ("explicit", '''
def my_b_elements(lane):
    n, t = lane // 4, lane % 4
    return [(2 * t, n), (2 * t + 1, n), (2 * t + 8, n), (2 * t + 9, n)]
'''),
    ("k_offsets", '''
def my_b_elements(lane):
    col = lane >> 2
    k0 = (lane & 3) * 2
    return [(k0 + dk, col) for dk in (0, 1, 8, 9)]
'''),
    ("register_loop", '''
def my_b_elements(lane):
    g, t = divmod(lane, 4)
    regs = []
    for r in range(2):
        for half in range(2):
            regs.append((2 * t + half + 8 * r, g))
    return regs
'''),
]

CORPUS["10-4"] = [
    ("if_halves", '''
def my_ldsm_rows(lane):
    if lane < 16:
        a = (lane, 0)
    else:
        a = (lane - 16, 8)
    return a, (lane % 16, 0)
'''),
    ("divmod", '''
def my_ldsm_rows(lane):
    half, r = divmod(lane, 16)
    return (r, 8 * half), (r, 0)
'''),
    ("bits_and_ignored_lanes", '''
def my_ldsm_rows(lane):
    a = (lane & 15, (lane >> 4) << 3)
    b = (lane & 15, 0) if lane < 16 else (0, 0)     # .x2 ignores lanes 16-31: any address there
    return a, b
'''),
    # a 2x2 numpy array (review round 25, A-1: it was read as a wrong type)
    ("numpy_pair", '''
import numpy as np

def my_ldsm_rows(lane):
    half = lane // 16
    return np.array([[lane % 16, 8 * half],      # As: lanes 0-15 at column 0, 16-31 at column 8
                     [lane % 16, 0]])            # Bs: rows 0-15 (.x2 ignores lanes 16-31)
'''),
]

CORPUS["10-5"] = [
    ("step_counter", '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for step in range(A.shape[1] // 16):
        k0 = step * 16
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)
        cuda.syncthreads()
        r = lane % 16
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, r, (lane // 16) * 8)
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, r, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
        cuda.syncthreads()          # the next copy_tiles overwrites As/Bs that other lanes' ldmatrix read
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    ("tuple_fragments", '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)
        cuda.syncthreads()
        b = ptx.ldmatrix_x2_trans(Bs, lane & 15, 0)
        a = ptx.ldmatrix_x4(As, lane & 15, (lane >> 4) << 3)
        d = ptx.mma_m16n8k16_f32(a[0], a[1], a[2], a[3], b[0], b[1], c0, c1, c2, c3)
        c0 = d[0]
        c1 = d[1]
        c2 = d[2]
        c3 = d[3]
        cuda.syncthreads()
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    ("own_address_helper", '''
@cuda.jit(device=True)
def a_address(lane):
    return lane % 16, 8 * (lane // 16)

@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    K = A.shape[1]
    k0 = 0
    while k0 < K:
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)
        cuda.syncthreads()
        ar, ac = a_address(lane)
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, ar, ac)
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
        cuda.syncthreads()
        k0 += 16
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    # review round 25: B-4's technique check must keep these: two m16n8k8 per K step, an mma from zero added
    # to the accumulators by hand, a barrier between ldmatrix and mma
    ("two_k8_mmas", '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    """워프 하나가 C 의 16×8 타일 하나: K 를 16씩 공유 메모리로 복사하고, 프래그먼트를 읽어 mma 로 누적 (f16 입력, f32 누적)."""
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)   # 레인마다 A 8개, B 4개를 As, Bs 로
        cuda.syncthreads()                                    # ldmatrix 는 다른 레인이 복사한 행을 읽습니다
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
        # K = 16 as two k8 steps (the Turing instruction): a0, a1 with b0 is k 0-7, a2, a3 with b1 is k 8-15
        c0, c1, c2, c3 = ptx.mma_m16n8k8_f32(a0, a1, b0, c0, c1, c2, c3)
        c0, c1, c2, c3 = ptx.mma_m16n8k8_f32(a2, a3, b1, c0, c1, c2, c3)
        cuda.syncthreads()
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    ("mma_from_zero_then_add", '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    """워프 하나가 C 의 16×8 타일 하나: K 를 16씩 공유 메모리로 복사하고, 프래그먼트를 읽어 mma 로 누적 (f16 입력, f32 누적)."""
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)   # 레인마다 A 8개, B 4개를 As, Bs 로
        cuda.syncthreads()                                    # ldmatrix 는 다른 레인이 복사한 행을 읽습니다
        r = lane & 15
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, r, (lane >> 4) << 3)
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, r, 0)
        cuda.syncthreads()                   # all lanes have their fragments: the next copy may overwrite As/Bs
        z = float32(0.0)
        d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, z, z, z, z)
        c0 += d0
        c1 += d1
        c2 += d2
        c3 += d3
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
    ("barrier_right_after_ldmatrix", '''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    """워프 하나가 C 의 16×8 타일 하나: K 를 16씩 공유 메모리로 복사하고, 프래그먼트를 읽어 mma 로 누적 (f16 입력, f32 누적)."""
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)   # 레인마다 A 8개, B 4개를 As, Bs 로
        cuda.syncthreads()                                    # ldmatrix 는 다른 레인이 복사한 행을 읽습니다
        half = lane // 16
        b = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
        a = ptx.ldmatrix_x4(As, lane - 16 * half, 8 * half)
        cuda.syncthreads()                   # reads of As/Bs are over; mma works on registers
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a[0], a[1], a[2], a[3], b[0], b[1], c0, c1, c2, c3)
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
'''),
]

CORPUS["11-1"] = [
    ("divmod_and_blocks", '''
def acc_element(t, i):
    warp, lane = divmod(t, 32)
    group, pair = divmod(lane, 4)
    block, reg = divmod(i, 4)
    row = 16 * warp + group + (8 if reg >= 2 else 0)
    col = 8 * block + 2 * pair + (reg & 1)
    return (row, col)
'''),
    ("reuse_mma_c_fragment", '''
from sim import mma

def acc_element(t, i):
    r, c = mma.c_elements(t % 32)[i % 4]       # notebook 10's C fragment, every 8 columns again
    return 16 * (t // 32) + r, 8 * (i // 4) + c
'''),
    ("bits_and_offset_table", '''
OFFSETS = [(0, 0), (0, 1), (8, 0), (8, 1)]

def acc_element(t, i):
    lane = t & 31
    dr, dc = OFFSETS[i & 3]
    return [((t >> 5) << 4) + (lane >> 2) + dr, ((i >> 2) << 3) + ((lane & 3) << 1) + dc]
'''),
]

CORPUS["11-2"] = [
    ("field_loop", '''
def b_descriptor(addr, kk, BK):
    d = 0
    for value, shift in ((addr + kk * 2048, 0), (BK * 128, 16), (1024, 32)):
        d |= ((value >> 4) & 0x3FFF) << shift
    return d | (1 << 62)
'''),
    ("named_units_and_sum", '''
SWIZZLE_128B = 1
ROW_BYTES = 128

def units(nbytes):
    return (nbytes % (1 << 18)) // 16

def b_descriptor(addr, kk, BK):
    start = units(addr + kk * 16 * ROW_BYTES)
    lbo = units(BK * ROW_BYTES)
    sbo = units(8 * ROW_BYTES)
    return start + (lbo << 16) + (sbo << 32) + (SWIZZLE_128B << 62)
'''),
    ("numpy_uint64", '''
import numpy as np

def b_descriptor(addr, kk, BK):
    enc = lambda x: np.uint64((x & 0x3FFFF) >> 4)
    return (enc(addr + 2048 * kk) | (enc(128 * BK) << np.uint64(16)) | (enc(1024) << np.uint64(32))
            | (np.uint64(1) << np.uint64(62)))
'''),
]

CORPUS["11-3"] = [
    ("if_else", '''
def ring_phase(it, stages):
    s = it % stages
    lap = it // stages
    if lap % 2 == 0:
        return s, 0, 1
    return s, 1, 0
'''),
    ("divmod_and_bools", '''
def ring_phase(it, stages):
    lap, s = divmod(it, stages)
    odd = lap % 2 == 1
    return s, odd, not odd
'''),
    ("count_the_phases", '''
def ring_phase(it, stages):
    done = [0] * stages          # phases each stage's full barrier completed before k-iteration it
    for j in range(it):
        done[j % stages] += 1
    s = it % stages
    return s, done[s] & 1, 1 - (done[s] & 1)
'''),
]

CORPUS["11-4"] = [
    ("previous_stage_by_if", '''
def consumer_step(ring, it, kt):
    s = it % ring.stages
    parity = (it // ring.stages) & 1
    ring.wait_full(s, parity)
    ring.mma(s)
    ring.commit()
    ring.wait_mma(1)
    if kt != 0:
        prev = s - 1 if s > 0 else ring.stages - 1
        ring.release(prev)
'''),
    ("early_return", '''
def consumer_step(ring, it, kt):
    n = ring.stages
    s, parity = it % n, (it // n) % 2
    ring.wait_full(s, parity)
    ring.mma(s)
    ring.commit()
    ring.wait_mma(1)          # all but this k-iteration's group are done
    if kt == 0:
        return                # the previous stage belonged to the last tile: released at its end
    ring.release((s + n - 1) % n)
'''),
    ("own_helpers", '''
def stage_of(it, n):
    return it % n

def issue(ring, s):
    ring.mma(s)
    ring.commit()

def consumer_step(ring, it, kt):
    s = stage_of(it, ring.stages)
    ring.wait_full(s, (it // ring.stages) & 1)
    issue(ring, s)
    ring.wait_mma(1)
    if kt:
        ring.release(stage_of(it - 1, ring.stages))
'''),
]
