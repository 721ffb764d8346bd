"""Chapter 07, 레지스터 블로킹 (register blocking): everything of notebooks/07_*.ipynb in one folder (course/chapters.py lists it).

lesson.py (analysis helpers), exercises.py ("직접 해보기" 07-N), quiz.json (the checkpoint), notebook.py (the
notebook's generator: python -m course.ch07_register_blocking.notebook). Solutions: answers/ch07/; tests: tests/ch07/.
records/: the GPU records only this chapter reads; records several chapters read stay in course/recorded/
(its README lists both; course.records finds a record by name in either).
"""
