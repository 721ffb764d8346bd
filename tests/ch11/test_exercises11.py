"""Messages of notebook 11's exercise checkers that the diagnosis code alone does not pin down: the line a diagnosis
blames, the words it uses (review round 25: the student answers of scratch25/answers/11-*, as a student typed them)."""
import pytest

from course import exercises
from course.exercises import core
from exercise_cases import import_source
from sim.korean import wrong_particles


def _check(ex_id, src, tmp_path):
    ex = core.get(ex_id)
    mod = import_source(src, tmp_path, f"s{ex_id.replace('-', '')}_{abs(hash(src)) % 10 ** 8}")
    res = exercises.check(ex_id, getattr(mod, ex.name), save=False)
    assert not res.ok, str(res)
    assert not wrong_particles("\n".join([res.message, res.where] + list(res.details))), str(res)
    return res


ENC = "    enc = lambda x: (x & 0x3FFFF) >> 4\n"
# a right encoder and a wrong argument written in its call: the call's line is blamed, not the encoder (r25 U-4)
BLAME_THE_CALL = [
    ("kstep_32B", ENC + "    return enc(addr + kk * 32) | enc(BK * 128) << 16 | enc(1024) << 32 | 1 << 62\n", "k_step"),
    ("kstep_BK", ENC + "    return enc(addr + kk * BK * 128) | enc(BK * 128) << 16 | enc(1024) << 32 | 1 << 62\n",
     "k_step"),
    ("lbo_fixed", ENC + "    return enc(addr + kk * 2048) | enc(64 * 128) << 16 | enc(1024) << 32 | 1 << 62\n", "lbo"),
    ("sbo_512", ENC + "    return enc(addr + kk * 2048) | enc(BK * 128) << 16 | enc(512) << 32 | 1 << 62\n", "sbo"),
]


@pytest.mark.parametrize("label, body, code", BLAME_THE_CALL, ids=[c[0] for c in BLAME_THE_CALL])
def test_11_2_a_right_encoder_called_with_a_wrong_argument_blames_the_call(tmp_path, label, body, code):
    res = _check("11-2", "def b_descriptor(addr, kk, BK):\n" + body, tmp_path)
    assert res.code == code and res.where.startswith("3행 `return enc("), (res.code, res.where, str(res))


def test_11_2_a_wrong_value_kept_in_a_variable_blames_the_variable_not_the_encoder(tmp_path):
    src = ("def enc(x):\n    return (x & 0x3FFFF) >> 4\n\n"
           "def b_descriptor(addr, kk, BK):\n    start = addr + kk * 32\n    lbo = BK * 128\n    sbo = 4 * 128\n"
           "    return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | 1 << 62\n")
    res = _check("11-2", src, tmp_path)
    assert res.code == "k_step" and res.where.startswith("5행 `start = addr + kk * 32`"), (res.where, str(res))
    res = _check("11-2", src.replace("kk * 32", "kk * 2048"), tmp_path)
    assert res.code == "sbo" and res.where.startswith("7행 `sbo = 4 * 128`"), (res.where, str(res))


def test_11_2_a_wrong_encoder_is_still_blamed(tmp_path):
    # r25 U-3: the 14-bit mask on the bytes: right below 16 KiB, so it is not "LBO put in as bytes"
    src = ("def b_descriptor(addr, kk, BK):\n    field = lambda nbytes: (nbytes & 0x3FFF) >> 4\n"
           "    return field(addr + kk * 2048) | field(BK * 128) << 16 | field(1024) << 32 | 1 << 62\n")
    res = _check("11-2", src, tmp_path)
    assert res.code == "mask_bytes" and res.where.startswith("2행 `field = lambda"), (res.where, str(res))
    assert "0x3FFF(14비트)로 자른 뒤" in res.message and "16 KiB" in res.message, str(res)
    assert "바이트 그대로" not in res.message and "(x & 0x3FFFF) >> 4" in res.message, str(res)


def test_11_2_bytes_put_in_as_they_are_is_still_named_so(tmp_path):
    src = ("def b_descriptor(addr, kk, BK):\n    start = addr + kk * 2048\n"
           "    return ((start & 0x3FFFF) >> 4) | (BK * 128 & 0x3FFF) << 16 | (1024 >> 4) << 32 | 1 << 62\n")
    res = _check("11-2", src, tmp_path)
    assert res.code == "not_shifted" and res.message.startswith("LBO를 바이트 그대로"), str(res)


def test_11_3_one_parity_used_for_both_barriers_blames_the_return_line(tmp_path):
    # r25 U-5: `p` is the consumer's (right) parity; the return line put it in the producer's place too
    res = _check("11-3", "def ring_phase(it, stages):\n    p = (it // stages) & 1\n    return it % stages, p, p\n",
                 tmp_path)
    assert res.code == "producer_parity" and res.where.startswith("3행 `return it % stages, p, p`"), str(res)
    # the producer's parity on a line of its own: that line is the mistake
    res = _check("11-3", "def ring_phase(it, stages):\n    full = (it // stages) & 1\n    empty = (it // stages) & 1\n"
                         "    return it % stages, full, empty\n", tmp_path)
    assert res.code == "producer_parity" and res.where.startswith("3행 `empty = "), str(res)


RING = ("def consumer_step(ring, it, kt):\n    s = it % ring.stages\n    ring.wait_full(s, (it // ring.stages) & 1)\n"
        "    ring.mma(s)\n    ring.commit()\n    ring.wait_mma(1)\n    if kt > 0:\n"
        "        ring.release((it - 1) % ring.stages)\n")


def test_11_4_a_wait_that_leaves_the_group_in_flight_is_named_at_its_line(tmp_path):
    # r25 U-6: the student did wait before the release; the wait's N is what is wrong
    res = _check("11-4", RING.replace("ring.wait_mma(1)", "ring.wait_mma(2)"), tmp_path)
    assert res.code == "wait_too_large" and res.where.startswith("6행 `ring.wait_mma(2)`"), str(res)
    assert "wait_mma(2)가" in res.message and "1개뿐" in res.message and "wait_mma(1) 이하" in res.message, str(res)


def test_11_4_a_wait_before_the_commit_is_named_at_its_line(tmp_path):
    res = _check("11-4", RING.replace("    ring.commit()\n    ring.wait_mma(1)\n",
                                      "    ring.wait_mma(1)\n    ring.commit()\n"), tmp_path)
    assert res.code == "wait_before_commit" and res.where.startswith("5행 `ring.wait_mma(1)`"), str(res)
    assert "commit 보다 먼저" in res.message, str(res)


def test_11_4_a_release_with_no_wait_before_it_is_still_release_before_wait(tmp_path):
    src = RING.replace("    ring.wait_mma(1)\n    if kt > 0:\n        ring.release((it - 1) % ring.stages)\n",
                       "    if kt > 0:\n        ring.release((it - 1) % ring.stages)\n    ring.wait_mma(1)\n")
    res = _check("11-4", src, tmp_path)
    assert res.code == "release_before_wait" and res.where.startswith("7행 `ring.release("), str(res)
    # the stage of its own k-iteration: no wait_mma(1) could have finished it
    res = _check("11-4", RING.replace("ring.release((it - 1) % ring.stages)", "ring.release(s)"), tmp_path)
    assert res.code == "release_before_wait", str(res)


def test_uses_model_names_the_function_without_a_particle_after_it(tmp_path):
    # r25 U-10: `course_consumer_step`를 — an English name is read as words; the name goes in parentheses
    res = _check("11-4", "from sim import ws_ring\n\ndef consumer_step(ring, it, kt):\n"
                         "    ws_ring.course_consumer_step(ring, it, kt)\n", tmp_path)
    assert res.code == "uses_model" and "(`course_consumer_step`, sim/ws_ring.py)" in res.message, str(res)
    assert "`를" not in res.message and "`을" not in res.message, str(res)


def test_11_1_stops_at_the_first_model_call(tmp_path):
    # r25 E: a search over the model took a minute; the verdict is known after the first call of the function
    src = ("from sim import wgmma\nCALLS = []\n\ndef acc_element(t, i):\n    CALLS.append((t, i))\n"
           "    for r in range(64):\n        for c in range(64):\n"
           "            if wgmma.accumulator_owner(r, c, 64) == (t, i):\n                return r, c\n")
    ex = core.get("11-1")
    mod = import_source(src, tmp_path, "s111_search")
    res = exercises.check("11-1", getattr(mod, ex.name), save=False)
    assert res.code == "uses_model" and "(`accumulator_owner`, sim/wgmma.py)" in res.message, str(res)
    assert len(mod.CALLS) == 1, len(mod.CALLS)
