"""Quiz 08 question 7: the epilogue of the register-prefetch kernel (the last K tile, then the result store).

EPILOGUE is the model answer, as typed into the quiz's text area: it goes after the main loop of
course.quiz.checks.EPILOGUE_TEMPLATE (08-2's kernel, answers/ch08/ex08_db8.py, with db's loop order instead of 08-2's
register prefetch; the epilogue is the same). WRONG holds typical mistakes, each with
the words the checker's message must contain (tests/ch08/test_answers08.py runs them all).
"""

EPILOGUE = """\
acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)   # the last tile: the loop computed 0 .. n_tiles-2
if row < C.shape[0] and col < C.shape[1]:            # edge blocks: threads outside C store nothing
    if beta == 0:
        C[row, col] = alpha * acc                    # C is output only: it may hold anything (NaN)
    else:
        C[row, col] = alpha * acc + beta * C[row, col]
"""

_STORE = """\
if row < C.shape[0] and col < C.shape[1]:
    if beta == 0:
        C[row, col] = alpha * acc
    else:
        C[row, col] = alpha * acc + beta * C[row, col]
"""

WRONG = {
    "no_last_tile": (_STORE, "마지막 K 타일"),
    "wrong_buffer": ("acc += tile_dot(As, Bs, n_tiles % 2, ty, tx)\n" + _STORE, "앞 타일"),
    "no_bounds": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n"
                  "C[row, col] = alpha * acc + beta * C[row, col]\n", "행렬 밖"),
    "reads_c_when_beta_0": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n"
                            "if row < C.shape[0] and col < C.shape[1]:\n"
                            "    C[row, col] = alpha * acc + beta * C[row, col]\n", "beta = 0 인데 C 를 읽었습니다"),
    "no_beta": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n"
                "if row < C.shape[0] and col < C.shape[1]:\n"
                "    C[row, col] = alpha * acc\n", "beta·C 를 더하지 않았습니다"),
    "no_store": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n", "C 가 그대로"),
    "helper": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\nstore_c(C, row, col, acc, alpha, beta)\n",
               "직접 쓰세요"),
    "import": ("import os\n" + _STORE, "코드 오류"),
    # the buffer from the loop variable: right for 2+ K tiles, but with one the loop never runs and kt has no value
    "buffer_from_kt": ("acc += tile_dot(As, Bs, (kt + 1) % 2, ty, tx)\n" + _STORE, "kt 가 아니라 n_tiles 로"),
    # C = acc when beta == 0 (review round 18, W-3): the beta = 0 case with alpha = -2 names the missing alpha
    "no_alpha_when_beta_0": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n"
                             "if row < C.shape[0] and col < C.shape[1]:\n"
                             "    if beta == 0:\n"
                             "        C[row, col] = acc\n"
                             "    else:\n"
                             "        C[row, col] = alpha * acc + beta * C[row, col]\n", "alpha 를 곱하지 않았습니다"),
    # review round 19 (I-4): beta not multiplied, and a beta term that depends on beta's sign (a case has beta < 0)
    "beta_not_multiplied": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n"
                            "if row < C.shape[0] and col < C.shape[1]:\n"
                            "    if beta == 0:\n"
                            "        C[row, col] = alpha * acc\n"
                            "    else:\n"
                            "        C[row, col] = alpha * acc + C[row, col]\n", "beta 를 곱하지 않았습니다"),
    "beta_sign_dropped": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n"
                          "if row < C.shape[0] and col < C.shape[1]:\n"
                          "    if beta == 0:\n"
                          "        C[row, col] = alpha * acc\n"
                          "    else:\n"
                          "        C[row, col] = alpha * acc + abs(beta) * C[row, col]\n", "alpha·(A @ B) + beta·C"),
    "returns_a_value": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n" + _STORE + "return acc\n",
                        "값을 돌려주지 않습니다"),
}

# right epilogues written differently from EPILOGUE (tests/ch08/test_answers08.py: each must pass)
RIGHT = {
    # a bare return ends the threads outside C (a kernel statement; review round 17, I-3)
    "early_return": ("acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)\n"
                     "if row >= C.shape[0] or col >= C.shape[1]:\n"
                     "    return\n"
                     "if beta == 0:\n"
                     "    C[row, col] = alpha * acc\n"
                     "else:\n"
                     "    C[row, col] = alpha * acc + beta * C[row, col]\n"),
}
