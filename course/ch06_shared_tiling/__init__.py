"""Chapter 06, 공유 메모리 타일링 (shared-memory tiling): everything of notebooks/06_*.ipynb in one folder (course/chapters.py lists it).

lesson.py (analysis helpers), exercises.py ("직접 해보기" 06-N), quiz.json (the checkpoint), notebook.py (the
notebook's generator: python -m course.ch06_shared_tiling.notebook). Solutions: answers/ch06/; tests: tests/ch06/.
records/: the GPU records only this chapter reads; records several chapters read stay in course/recorded/
(its README lists both; course.records finds a record by name in either).
"""
