"""Fragment layouts of mma.sync.m16n8k16 (f16 inputs) and ldmatrix.m8n8: which lane holds which matrix element (pure).

Source: PTX ISA (8.5), section 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type"
(figures "MMA .m16n8k16 fragment layout for matrix A / B / C/D with .f16/.bf16 type") and section 9.7.14.5.15
"Warp-level matrix load instruction: ldmatrix". With groupID = laneid >> 2 and threadID_in_group = laneid % 4:

* A (16x16, .row), four .b32 registers a0..a3 = eight f16 elements a_0..a_7 (two per register, low half first):
  row = groupID for a_i with 0 <= i < 2 or 4 <= i < 6, else groupID + 8;
  col = threadID_in_group * 2 + (i & 1) for i < 4, else threadID_in_group * 2 + (i & 1) + 8.
* B (16x8, .col), two .b32 registers = four f16 elements b_0..b_3:
  row (k) = threadID_in_group * 2 + (i & 1) for i < 2, else threadID_in_group * 2 + (i & 1) + 8; col = groupID.
* C/D (16x8): four elements c_0..c_3 (four .f32 registers, or two .f16x2 registers for f16 accumulation):
  row = groupID for i < 2, else groupID + 8; col = threadID_in_group * 2 + (i & 1).
* ldmatrix .m8n8 .x1/.x2/.x4 (.b16): lanes 8*j .. 8*j+7 give the addresses of the 8 rows of matrix j (for .x1 only
  lanes 0-7 matter, for .x2 lanes 0-15); every lane receives one .b32 register per matrix: row laneid/4, columns
  2*(laneid%4) and +1 of that matrix. With .trans the matrix is transposed on the way: the register holds
  elements (2*(laneid%4), laneid/4) and (2*(laneid%4)+1, laneid/4) of the rows as stored.

These functions are the single source of truth: the simulator stand-ins (kernels_numba.infra.simulator.warp), the visualizer
(course.widgets.mma) and the GPU layout check (tests/test_mma_layout.py vs course/recorded/mma_layout_*.json) use them.
"""
WARP = 32
M, N, K = 16, 8, 16                       # mma.m16n8k16


def group(lane):
    """(groupID, threadID_in_group) of a lane."""
    _check_lane(lane)
    return lane >> 2, lane % 4


def _check_lane(lane):
    if not 0 <= int(lane) < WARP:
        raise ValueError(f"lane must be 0..31, not {lane}")


def a_elements(lane):
    """[(row, col)] of the 8 f16 elements of A a lane holds, in order a_0..a_7 (register r holds a_2r, a_2r+1)."""
    g, t = group(lane)
    return [(g + (8 if i in (2, 3, 6, 7) else 0), t * 2 + (i & 1) + (8 if i >= 4 else 0)) for i in range(8)]


def b_elements(lane):
    """[(k, col)] of the 4 f16 elements of B a lane holds, in order b_0..b_3 (register r holds b_2r, b_2r+1)."""
    g, t = group(lane)
    return [(t * 2 + (i & 1) + (8 if i >= 2 else 0), g) for i in range(4)]


def c_elements(lane):
    """[(row, col)] of the 4 elements of C/D a lane holds, c_0..c_3 (f32: one register each; f16: c_0c_1, c_2c_3)."""
    g, t = group(lane)
    return [(g + (8 if i >= 2 else 0), t * 2 + (i & 1)) for i in range(4)]


ELEMENTS = {"A": a_elements, "B": b_elements, "C": c_elements}
SHAPES = {"A": (M, K), "B": (K, N), "C": (M, N)}


def owner(matrix, row, col):
    """(lane, element index i) that holds element (row, col) of fragment matrix 'A', 'B' or 'C'."""
    for lane in range(WARP):
        els = ELEMENTS[matrix](lane)
        if (row, col) in els:
            return lane, els.index((row, col))
    raise ValueError(f"{matrix} is {SHAPES[matrix]}: no element ({row}, {col})")


REGISTER_PREFIX = {"A": "a", "B": "b", "C": "c"}
PER_REGISTER = {"A": 2, "B": 2, "C": 1}      # f16 A/B: two elements per .b32 register (low half first); f32 C: one
HALF_KO = ("아래 절반", "위 절반")           # low (bits 0-15), high (bits 16-31) half of a .b32 register


def register_of(matrix, i):
    """(register name, half) of element i of a lane's fragment: C's c_3 -> ('c3', None), A's a_6 -> ('a3', 0)."""
    per = PER_REGISTER[matrix]
    if not 0 <= i < len(ELEMENTS[matrix](0)):
        raise ValueError(f"{matrix} fragments have elements 0..{len(ELEMENTS[matrix](0)) - 1}, not {i}")
    return f"{REGISTER_PREFIX[matrix]}{i // per}", (i % per if per > 1 else None)


def element_name(matrix, i):
    """Korean name of element i of a lane's fragment: 'c3', 'a3 의 아래 절반' (never an ordinal count)."""
    reg, half = register_of(matrix, i)
    return reg if half is None else f"{reg} 의 {HALF_KO[half]}"


def lane_map(matrix):
    """2-D list [row][col] -> lane holding it (for plots)."""
    rows, cols = SHAPES[matrix]
    out = [[None] * cols for _ in range(rows)]
    for lane in range(WARP):
        for r, c in ELEMENTS[matrix](lane):
            out[r][c] = lane
    return out


# ---------------------------------------------------------------------------------------------------- ldmatrix

def ldmatrix_count(num):
    if num not in (1, 2, 4):
        raise ValueError(f"ldmatrix takes .x1, .x2 or .x4, not .x{num}")
    return num


def ldmatrix_address_lanes(num):
    """[(matrix j, row r)] indexed by lane for the lanes whose address is used; None for lanes whose address is ignored."""
    ldmatrix_count(num)
    return [(lane // 8, lane % 8) if lane < 8 * num else None for lane in range(WARP)]


def ldmatrix_address_lane(num, j, row):
    """The lane whose address ldmatrix.x{num} uses for row `row` of 8x8 matrix j: lane 8*j + row (PTX ISA)."""
    ldmatrix_count(num)
    if not (0 <= j < num and 0 <= row < 8):
        raise ValueError(f"ldmatrix.x{num} has matrices 0..{num - 1} of rows 0..7, not matrix {j} row {row}")
    return 8 * j + row


def ldmatrix_lane_map(num, trans=False):
    """3-D list [j][row][col] -> (lane, register, half) that receives stored element (row, col) of matrix j."""
    out = [[[None] * 8 for _ in range(8)] for _ in range(ldmatrix_count(num))]
    for lane in range(WARP):
        for reg, halves in enumerate(ldmatrix_elements(lane, num, trans)):
            for h, (j, r, c) in enumerate(halves):
                out[j][r][c] = (lane, reg, h)
    return out


def ldmatrix_elements(lane, num, trans=False):
    """For each of the lane's `num` registers: [(matrix j, row, col), (j, row, col+...)] of its low and high b16 half,
    row/col counted in the 8x8 matrix as it is stored (row r = the row whose address lane 8*j + r gave)."""
    _check_lane(lane)
    ldmatrix_count(num)
    r, c = lane // 4, 2 * (lane % 4)
    if trans:
        return [[(j, c, r), (j, c + 1, r)] for j in range(num)]
    return [[(j, r, c), (j, r, c + 1)] for j in range(num)]


def ldmatrix_receivers(num, j, row, col, trans=False):
    """[(lane, register, half)] that receive stored element (row, col) of matrix j (exactly one)."""
    out = []
    for lane in range(WARP):
        for reg, halves in enumerate(ldmatrix_elements(lane, num, trans)):
            for h, e in enumerate(halves):
                if e == (j, row, col):
                    out.append((lane, reg, h))
    return out


def ldmatrix_gather(rows, num, trans=False):
    """What ldmatrix delivers: rows[lane] = the 8 b16 values (ints) at lane's address, for lanes < 8*num.
    Returns [[(lo, hi)] * num] per lane."""
    out = []
    for lane in range(WARP):
        regs = []
        for halves in ldmatrix_elements(lane, num, trans):
            regs.append(tuple(rows[8 * j + rr][cc] for j, rr, cc in halves))
        out.append(regs)
    return out


# ------------------------------------------------------------------------------------------- mma on whole tiles

def fragments_from_tiles(A, B, C):
    """Per lane: (a[8], b[4], c[4]) element lists cut from full tiles A (16x16), B (16x8), C (16x8) (any 2-D indexables)."""
    return [([A[r][c] for r, c in a_elements(l)], [B[r][c] for r, c in b_elements(l)],
             [C[r][c] for r, c in c_elements(l)]) for l in range(WARP)]


def tiles_from_fragments(frags, matrix):
    """Inverse of fragments_from_tiles for one matrix: frags[lane] = its element list -> full tile (nested lists)."""
    rows, cols = SHAPES[matrix]
    out = [[None] * cols for _ in range(rows)]
    for lane in range(WARP):
        for (r, c), v in zip(ELEMENTS[matrix](lane), frags[lane]):
            out[r][c] = v
    return out


def ldmatrix_for_mma():
    """How the course's kernels feed mma from shared memory (row-major As[16][16], row-major Bs[16][8]):
    A: ldmatrix.x4, lane l gives the address of As[l % 16][8 * (l // 16)] -> a0..a3 exactly as mma wants;
    B: ldmatrix.x2.trans, lane l (< 16) gives the address of Bs[l][0] -> b0, b1.
    Returned as {'A': [(row, col) per lane], 'B': [...]} for the notebook and tests."""
    return {"A": [(l % 16, 8 * (l // 16)) for l in range(WARP)], "B": [(l % 16, 0) for l in range(WARP)]}


# ------------------------------------------------------------------------- mma.m16n8k8 (f16 inputs; Turing sm_75+)
# PTX ISA section "Matrix Fragments for mma.m16n8k8" (figures "MMA .m16n8k8 fragment layout for matrix A / B / C/D
# with .f16 type"); groupID = laneid >> 2, threadID_in_group = laneid % 4:
# * A (16x8, .row), two .f16x2 registers = a_0..a_3: row = groupID for a_0, a_1, else groupID + 8;
#   col = threadID_in_group * 2 + (i & 1).
# * B (8x8, .col), one .f16x2 register = b_0, b_1: row (k) = threadID_in_group * 2 + i; col = groupID.
# * C/D (16x8): c_0..c_3, the same as m16n8k16 (row groupID for c_0, c_1, else groupID + 8; col = tig * 2 + (i & 1)).
# Read off these formulas, m16n8k16's fragments are two m16n8k8 fragments side by side in k: its registers a0, a1 and
# b0 are the m16n8k8 operands for k 0-7, a2, a3 and b1 those for k 8-15 (K16_AS_K8). That is how the Turing kernels
# (kernels_numba/mma_*_turing.py) reuse the ldmatrix loads of the sm_80 kernels and issue two m16n8k8 per 16 of K.
K8 = 8
SHAPES_M16N8K8 = {"A": (M, K8), "B": (K8, N), "C": (M, N)}
K16_AS_K8 = (((0, 1), (0,)), ((2, 3), (1,)))     # [k half] -> (A register indexes, B register indexes) of m16n8k16


def m16n8k8_a_elements(lane):
    """[(row, col)] of the 4 f16 elements of A (16x8) a lane holds, a_0..a_3 (register r holds a_2r, a_2r+1)."""
    g, t = group(lane)
    return [(g + (8 if i >= 2 else 0), t * 2 + (i & 1)) for i in range(4)]


def m16n8k8_b_elements(lane):
    """[(k, col)] of the 2 f16 elements of B (8x8) a lane holds, b_0, b_1 (one register)."""
    g, t = group(lane)
    return [(t * 2 + i, g) for i in range(2)]


def m16n8k8_c_elements(lane):
    """[(row, col)] of the 4 f32 elements of C/D (16x8) a lane holds: the same as m16n8k16's."""
    return c_elements(lane)


ELEMENTS_M16N8K8 = {"A": m16n8k8_a_elements, "B": m16n8k8_b_elements, "C": m16n8k8_c_elements}


def m16n8k8_lane_map(matrix):
    """2-D list [row][col] -> lane holding it, for m16n8k8's 'A' (16x8), 'B' (8x8) or 'C' (16x8)."""
    rows, cols = SHAPES_M16N8K8[matrix]
    out = [[None] * cols for _ in range(rows)]
    for lane in range(WARP):
        for r, c in ELEMENTS_M16N8K8[matrix](lane):
            out[r][c] = lane
    return out


def m16n8k8_fragments_from_tiles(A, B, C):
    """Per lane: (a[4], b[2], c[4]) element lists cut from A (16x8), B (8x8), C (16x8) tiles."""
    return [([A[r][c] for r, c in m16n8k8_a_elements(l)], [B[r][c] for r, c in m16n8k8_b_elements(l)],
             [C[r][c] for r, c in m16n8k8_c_elements(l)]) for l in range(WARP)]


def ldmatrix_for_mma_k8():
    """How to feed one m16n8k8 from row-major As[16][8] and Bs[8][8]: A by ldmatrix.x2 (lane l < 16 gives the address
    of As[l][0] -> a0, a1), B by ldmatrix.x1.trans (lane l < 8 gives Bs[l][0] -> b0). Per lane (row, col)."""
    return {"A": [(l % 16, 0) for l in range(WARP)], "B": [(l % 8, 0) for l in range(WARP)]}


def lane_ranges(lanes):
    """'16–31' / '1–3, 5': a set of lane numbers as runs of consecutive lanes (for messages)."""
    lanes, parts, i = sorted(set(lanes)), [], 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        parts.append(f"{lanes[i]}" if i == j else f"{lanes[i]}–{lanes[j]}")
        i = j + 1
    return ", ".join(parts)
