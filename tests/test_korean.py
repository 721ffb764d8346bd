"""sim.korean picks 이/가, 을/를, 은/는, 과/와, 이었/였, 으로/로 by how the last syllable, digit or letter is read."""
import pytest

from sim.korean import final_consonant, josa, particle


@pytest.mark.parametrize("word, pair, want", [
    ("커널", "이/가", "커널이"), ("스레드", "이/가", "스레드가"), ("타일", "을/를", "타일을"), ("워프", "을/를", "워프를"),
    ("블록", "은/는", "블록은"), ("배리어", "은/는", "배리어는"), ("행", "과/와", "행과"), ("열", "과/와", "열과"),
    ("스레드", "과/와", "스레드와"), ("정답", "이었/였", "정답이었"), ("오답", "이었/였", "오답이었"),
    ("바이트", "이었/였", "바이트였"), ("파일", "으로/로", "파일로"), ("블록", "으로/로", "블록으로"),
    ("워프", "으로/로", "워프로"),
])
def test_hangul(word, pair, want):
    assert josa(word, pair) == want


@pytest.mark.parametrize("n, want", [
    (0, "을"), (1, "을"), (2, "를"), (3, "을"), (4, "를"), (5, "를"), (6, "을"), (7, "을"), (8, "을"), (9, "를"),
    (10, "을"), (16, "을"), (20, "을"), (32, "를"), (100, "을"), (128, "을"), (1000, "을"), (1024, "를"), (2048, "을"),
    (4096, "을"), (10000, "을"), (100000, "을"), (10 ** 8, "을"), (10 ** 12, "를"), (1.5, "를"), (0.25, "를"),
    ("1,024", "를"), ("(16, 0)", "을"), ("(16, 2)", "를"), ("99.3%", "를"),
])
def test_numbers(n, want):
    assert particle(n, "을/를") == want


@pytest.mark.parametrize("word, pair, want", [
    ("`As[ty, k]`", "이/가", "가"), ("`Bs[k, tx]`", "을/를", "를"), ("As[ty, kn]", "을/를", "을"), ("As", "이/가", "가"), ("rC", "을/를", "를"), ("BM", "은/는", "은"),
    ("N", "이/가", "이"), ("K", "이/가", "가"), ("L", "으로/로", "로"), ("M", "으로/로", "으로"),
    ("sm_80", "이/가", "이"), ("'kt'", "과/와", "와"),
])
def test_letters_and_code(word, pair, want):
    assert particle(word, pair) == want


def test_unknown_endings_show_both_and_bad_pairs_raise():
    assert particle("→", "이/가") == "이(가)" and particle("", "으로/로") == "(으)로"
    assert final_consonant("...") is None
    with pytest.raises(ValueError):
        particle("커널", "가/이")


@pytest.mark.parametrize("word, pair, want", [
    ("순서(로드 → 계산 → 저장)", "을/를", "를"), ("타일(k = 8…12)", "이/가", "이"), ("(16, 0)", "을/를", "을"),
    ("출력 (0, 13)", "은/는", "은"), ("As(32×8)", "과/와", "과"),
])
def test_an_aside_in_parentheses_after_a_word_does_not_decide(word, pair, want):
    # Korean orthography: the particle agrees with the word before the parenthesis ('순서(…)를'); a value standing
    # alone in parentheses is read for itself ('(16, 0)을')
    assert particle(word, pair) == want


@pytest.mark.parametrize("text, bad", [
    ("(16, 0) 를 보세요", True), ("4.3절 을 다시 읽으세요", True), ("순서(로드 → 저장)을 쓰지", True),
    ("As[3, 6] 가 틀립니다", True), ("타일(k = 8…12)이 빠졌습니다", False), ("입니다. 이 함수", False),
    ("commit 은 매 반복", False), ("N 이 너무 큽니다", False), ("tid = 13 이 패스", False), ("(16, 0) 을", False),
])
def test_wrong_particles_finds_what_a_reader_would(text, bad):
    from sim.korean import wrong_particles
    assert bool(wrong_particles(text)) is bad, wrong_particles(text)
